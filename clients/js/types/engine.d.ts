// Types of src/engine.js (`yomi-client/engine`, Node): a bot of your own, run by yomi as an engine.

/** The name of the engine protocol, and its version. */
export const PROTOCOL: "yomi-engine";
export const VERSION: 1;

/** A seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number | bigint): () => number;

/** Throw it from a bot's function to refuse a call with a clear error (`invalid_params` ...). */
export class BotError extends Error {
  constructor(message: string, code?: string);
  code: string;
}

/** One agent of the engine, as the bot's functions see it. */
export interface Me {
  options: Record<string, unknown>;
  seed: number;
  /** The agent's seeded generator: use it for every random choice, so a seeded match replays. */
  random: () => number;
  state: Record<string, unknown>;
  dataDir: string | null;
  /** In `act`: whether the caller asks for reasoning; set `explanation` to give it. */
  explain: boolean;
  explanation: unknown;
}

/** The type of an option: bool, int, float, choice (with `choices`), string or json. */
export type OptionType = "bool" | "int" | "float" | "choice" | "string" | "json";

/** An engine's declaration and its functions; `run()` serves it until stdin closes. */
export class Engine {
  constructor(name: string, description: string, options: { games: string[]; version?: string });
  option(name: string, type: OptionType, defaultValue: unknown, description: string,
    bounds?: { min?: number; max?: number; choices?: unknown[] }): void;
  preset(name: string, description: string, options: Record<string, unknown>): void;
  method(name: string, description: string, fn: (params: unknown, me: Me) => unknown,
    params?: Record<string, unknown>[]): void;
  act(fn: (observation: any, legal: any[], me: Me) => unknown): void;
  observe(fn: (event: unknown, me: Me) => void): void;
  gameOver(fn: (over: { seat: number; outcome: Record<string, unknown> }, me: Me) => void): void;
  configure(fn: (options: Record<string, unknown>, me: Me) => void): void;
  /** `input` is a readable stream (default: stdin), `output` a writable one (default: stdout). */
  run(input?: unknown, output?: { write(chunk: string): unknown }): void;
  /** The reply to one request line. */
  answer(line: string): Record<string, unknown>;
}
