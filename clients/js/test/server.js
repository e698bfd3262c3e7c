// Starts a real `yomi serve --tcp --http` for the tests and tells where it listens.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The yomi binary: $YOMI_BIN, else the workspace's release build. */
export const binary = process.env.YOMI_BIN ?? path.join(root, "target/release/yomi");

/**
 * Resolves with `{tcp, http, token, playground, stop}` once both listeners have logged their
 * addresses: `token` is the one the HTTP listener generated (none when `extra` gives one),
 * `playground` the URL carrying it. Unless `extra` names a `--data-dir`, the server keeps its
 * records in a fresh directory of its own, removed when it stops: a test never reads or writes
 * the user's data.
 */
export function startServer(extra = []) {
  const own = extra.includes("--data-dir") ? null : mkdtempSync(path.join(tmpdir(), "yomi-js-test-"));
  const args = own ? [...extra, "--data-dir", own] : extra;
  const child = spawn(binary, ["serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, YOMI_LOG: "info" }, // info is the level that logs the addresses
  });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`yomi did not start; log:\n${log}`)), 30000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const tcp = log.match(/listening on (127\.0\.0\.1:\d+)/);
      const http = log.match(/listening on http:\/\/(127\.0\.0\.1:\d+)/);
      const playground = log.match(/open the playground at (\S+)\s/);
      if (tcp && http && playground) {
        clearTimeout(timer);
        resolve({
          tcp: tcp[1],
          http: http[1],
          playground: playground[1],
          token: playground[1].match(/\?token=(\w+)$/)?.[1],
          /** Ends the server at once, as a crash would (SIGKILL): nothing of it runs on. */
          crash: () => new Promise((done) => {
            child.once("exit", () => done());
            child.kill("SIGKILL");
          }),
          stop: () => new Promise((done) => {
            child.once("exit", () => {
              if (own) rmSync(own, { recursive: true, force: true });
              done();
            });
            child.kill("SIGTERM");
          }),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`yomi exited with ${code}; log:\n${log}`)));
  });
}
