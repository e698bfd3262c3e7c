// Types of src/yomi.js. Every parameter and result type comes from ./protocol.d.ts, which
// scripts/gen-types.mjs generates from protocol/schema.json: a new field reaches these methods,
// and a new operation `request`, with no edit here.
import type {
  ActReply,
  Acted,
  ErrorCodeName,
  EventName,
  Events,
  Op,
  Operations,
  YourTurn,
} from "./protocol.js";

export * from "./protocol.js";

/** An operation's parameters, beside `id` and `op`. */
export type Params<O extends Op> = Operations[O]["params"];
/** An operation's result. */
export type Result<O extends Op> = Operations[O]["result"];
/** An event's line: its payload's fields and its name under `event`. */
export type EventMessage<E extends EventName> = Events[E] & { event: E };

/** A failed request: `code` is the protocol's stable error code. */
export class YomiError extends Error {
  constructor(code: ErrorCodeName | string, message: string, id?: number | string | null);
  code: ErrorCodeName | string;
  id: number | string | null;
}
/** The request was unreadable or malformed, or a bot cannot use its observation or legal list. */
export class RequestError extends YomiError {}
/** It names an agent, bot, game, preset, method, plugin or record that does not exist. */
export class NotFound extends YomiError {}
/** An option value, or an ambiguous bot name, that cannot be accepted. */
export class InvalidOption extends YomiError {}
/** The bot failed on a request it could read. */
export class BotFailure extends YomiError {}
/** The server or a client seat went away. */
export class ConnectionClosed extends YomiError {}
/** Not allowed now: a forbidden path, a conflicting state, a plugin that does not load, a limit, a token. */
export class Refused extends YomiError {}
/** The request was stopped by a `cancel`. */
export class Cancelled extends YomiError {}

/** Every error code this client knows, with its family. */
export const BY_CODE: Map<string, typeof YomiError>;
/** The error of a failed reply's `{code, message}`, of its code's family. */
export function errorFor(code: string, message: string, id?: number | string | null): YomiError;
/** The method of `Client` that sends each operation. */
export const OPERATION_METHODS: { [O in Op]: string };
/** Every event with its payload's fields. */
export const EVENTS: { [E in EventName]: string[] };

/** Options of `act` and `actBatch`. */
export interface ActOptions {
  explain?: boolean;
  /** Ask for the decision's `policy`: every action the bot could play with its probability. */
  policy?: boolean;
}

/** One protocol session over a WebSocket, TCP or a child `yomi serve --stdio`. */
export class Client {
  /** `ws://…`/`wss://…` (WebSocket) or `tcp://host:port` (Node); `token` is said in `hello` first. */
  static connect(target: string | URL, options?: { token?: string }): Promise<Client>;
  /** Node only: starts `binary serve --stdio ...args` and talks to it. */
  static spawn(binary?: string, args?: string[], options?: { token?: string }): Promise<Client>;

  /** Sends one request; resolves with its result, rejects with a `YomiError`. */
  request<O extends Op>(op: O, params?: Params<O>): Promise<Result<O>>;
  /** An operation these types do not know (a newer server's); a known one must fit its types. */
  request<S extends string>(op: S extends Op ? never : S, params?: Record<string, unknown>): Promise<unknown>;
  /** Sends one request; `id` is what `cancel(id)` names, `reply` the promise `request` gives. */
  start<O extends Op>(op: O, params?: Params<O>): { id: number; reply: Promise<Result<O>> };
  cancel(request: number | string | null, options?: { all?: boolean }): Promise<Result<"cancel">>;
  /** Calls `listener(message, name)` for each event named `name` (`"*"`: every event); returns an unsubscriber. */
  on<E extends EventName>(name: E, listener: (message: EventMessage<E>, name: E) => void): () => void;
  on(name: "*" | string, listener: (message: Record<string, unknown>, name: string) => void): () => void;
  close(): void;

  hello(client?: string, options?: { token?: string; protocol?: number }): Promise<Result<"hello">>;
  ping(): Promise<Result<"ping">>;
  catalog(): Promise<Result<"catalog">>;
  newAgent(bot: string, options?: Omit<Params<"agent.new">, "bot">): Promise<Result<"agent.new">>;
  /** One decision. */
  act(agent: string, observation: unknown, legal: unknown[], options?: ActOptions): Promise<ActReply>;
  /** One decision per position, in order (`{error}` in place of a position the bot refuses). */
  actBatch(agent: string, positions: NonNullable<Params<"agent.act">["positions"]>,
    options?: ActOptions): Promise<Exclude<Acted, ActReply>>;
  configure(agent: string, change: Omit<Params<"agent.configure">, "agent">): Promise<Result<"agent.configure">>;
  swap(agent: string, change?: Omit<Params<"agent.swap">, "agent">): Promise<Result<"agent.swap">>;
  observe(agent: string, event: unknown): Promise<Result<"agent.observe">>;
  call(agent: string, method: string, params?: unknown): Promise<Result<"agent.call">>;
  drop(agent: string): Promise<Result<"agent.drop">>;
  agents(): Promise<Result<"agent.list">>;
  move(match: string, seat: number, action: unknown): Promise<Result<"match.move">>;
  runMatch(spec: Omit<Params<"match.run">, "seed" | "transcript">,
    options?: { seed?: number; transcript?: boolean }): Promise<Result<"match.run">>;
  replay(transcript: string): Promise<Result<"match.replay">>;
  tournaments(): Promise<Result<"tournament.list">>;
  showTournament(tournament: string): Promise<Result<"tournament.show">>;
  tournamentGames(tournament: string, offset?: number, limit?: number): Promise<Result<"tournament.games">>;
  tournamentGame(tournament: string, game: number): Promise<Result<"tournament.game">>;
  plugins(): Promise<Result<"plugin.list">>;
  loadPlugin(path: string): Promise<Result<"plugin.load">>;
  tournament(spec: Params<"tournament.run">,
    onEvent?: (message: EventMessage<"tournament.started" | "tournament.progress">, name: string) => void,
  ): Promise<Result<"tournament.run">>;
  /** Operators only: `yomi humanlike --json`'s report of a bot on a record set. */
  humanlike(spec: Params<"humanlike.run">,
    onEvent?: (message: EventMessage<"replay.progress">, name: string) => void,
  ): Promise<Result<"humanlike.run">>;
  /** Operators only: a bot's options fitted to a record set, written as a preset (`yomi fit --json`). */
  fit(spec: Params<"fit.run">,
    onEvent?: (message: EventMessage<"replay.progress">, name: string) => void,
  ): Promise<Result<"fit.run">>;
  /** The opening suites a tournament may name. */
  openings(): Promise<Result<"openings.list">>;
  /** Plays the seats given as `{client: NAME}`: `onTurn` returns (or resolves to) each action. */
  playMatch(params: Params<"match.run">, onTurn: (turn: EventMessage<"your_turn"> & YourTurn) => unknown,
    onEvent?: (message: Record<string, unknown>, name: string) => void): Promise<Result<"match.run">>;
}
