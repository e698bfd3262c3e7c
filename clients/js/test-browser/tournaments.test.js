// The tournament page as its users use it, in a real headless Chromium: the operator browses the
// records (a finished, an interrupted and a running tournament), resumes the one a crash
// (kill -9) interrupted and sees its standings complete; a recorded game's explanations show in
// the replay viewer, and so does a transcript file the person opens; a player's page sees only the tournaments it starts, checked on the wire
// (every WebSocket frame the page received). Screenshots go to $YOMI_WEB_ARTIFACTS.
// Run by scripts/test-web.sh, which installs Chromium and playwright-core.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launchChromium } from "./chromium.js";
import { binary, startServer } from "../test/server.js";
import { Client } from "../src/yomi.js";

const ARTIFACTS = process.env.YOMI_WEB_ARTIFACTS ?? path.resolve("../../target/web-artifacts");
const OPERATOR = "operator-token-0123456789abcdef";
const PLAYER = "player-token-0123456789abcdef";
const RPS = ["example/rps", "example/rps:reader", "example/rps:rock-lover"];

let browser;
let dataDir;
let server;
/** The operator's tournaments, by what became of them. */
const made = {};

/** A server on the shared data directory, with a player and an operator token. */
const serve = () => startServer(["--data-dir", dataDir, "--token", PLAYER, "--operator-token", OPERATOR]);

/** An rps round robin of the three example bots over the protocol. */
const rps = (gamesPerPair, seed) => ({
  game: "rps", bots: RPS.map((id) => { const [bot, preset] = id.split(":"); return preset ? { bot, preset } : { bot }; }),
  games_per_pair: gamesPerPair, seed, keep_transcripts: true,
});

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "yomi-tournaments-"));
  // A finished tournament, and one the server's crash interrupts part way.
  const first = await serve();
  const operator = await Client.connect(first.tcp, { token: OPERATOR });
  made.finished = (await operator.tournament(rps(4, 1))).id;
  const crashed = new Promise((resolve) => {
    operator.tournament(rps(4000, 2), (event) => {
      if (event.event === "tournament.started") made.interrupted = event.id;
      if (event.event === "tournament.progress" && event.games >= 200) resolve();
    }).catch(() => {});
  });
  await crashed;
  await first.crash();
  operator.close();
  // After the restart, one that is still running while the page looks.
  server = await serve();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The playground as the holder of `token` opens it; page errors are collected in `errors`. */
async function openPlayground(token, errors) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`http://${server.http}/?token=${token}`);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  await page.getByRole("button", { name: "Tournament" }).click();
  return page;
}

async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

/** Every WebSocket frame the page receives, as text. */
function receivedFrames(page) {
  const frames = [];
  page.on("websocket", (socket) => socket.on("framereceived", ({ payload }) => frames.push(String(payload))));
  return frames;
}

/** The title's "N / M games" once the open tournament shows `status`. */
async function titleOnce(page, status, timeout = 120000) {
  const title = page.getByTestId("t-title");
  await page.locator(`[data-testid=t-title][data-status=${status}]`).waitFor({ timeout });
  // Played to its end by this page: the form is back and the games are listed.
  await page.locator("[data-testid=t-start]:not([disabled])").waitFor({ timeout });
  const [, done, total] = (await title.textContent()).match(/(\d+) \/ (\d+) games/);
  return { done: Number(done), total: Number(total) };
}

test("the operator browses running, interrupted and finished tournaments and resumes the interrupted one", async () => {
  const errors = [];
  const operator = await Client.connect(server.tcp, { token: OPERATOR });
  const started = new Promise((resolve) => {
    operator.tournament(rps(20000, 3), (event) => {
      if (event.event === "tournament.progress") resolve(event.id);
    }).catch(() => {});
  });
  made.running = await started;
  const page = await openPlayground(OPERATOR, errors);
  assert.equal(await page.getByTestId("t-browse").isVisible(), true);
  await page.getByTestId("t-browse").click();
  const row = (id) => page.locator(`[data-testid=t-list-table] tr[data-id="${id}"]`);
  await row(made.running).waitFor();
  const status = (id) => row(id).locator("td.status").textContent();
  assert.equal(await status(made.finished), "finished");
  assert.equal(await status(made.interrupted), "interrupted");
  assert.equal(await status(made.running), "running");
  // Only the interrupted one offers to resume.
  assert.equal(await page.locator("[data-testid=t-list-table] [data-testid=t-resume]").count(), 1);
  await screenshot(page, "tournament-browse.png");

  // Resume it from the page: it plays to the end, and its standings count every game.
  await row(made.interrupted).getByTestId("t-resume").click();
  const { done, total } = await titleOnce(page, "finished");
  assert.equal(total, 12000);
  assert.equal(done, total, "every game of the schedule played");
  const standings = await page.locator("[data-testid=t-standings] table").first().evaluate((table) =>
    [...table.rows].slice(1).map((r) => r.textContent));
  assert.equal(standings.length, 3, `standings: ${standings}`);
  assert.equal(await page.getByTestId("t-crosstable").locator("tr").count(), 4);
  await screenshot(page, "tournament-resumed.png");
  // The list on screen says so too, with nothing left to resume.
  await row(made.interrupted).locator("td.status", { hasText: "finished" }).waitFor();
  assert.equal(await page.locator("[data-testid=t-list-table] [data-testid=t-resume]").count(), 0);
  operator.close();
  assert.deepEqual(errors, []);
});

test("a recorded game's explanations show in the replay viewer", async () => {
  const errors = [];
  const page = await openPlayground(OPERATOR, errors);
  await page.getByTestId("t-game").selectOption("battle");
  // Two bots whose decisions come with the strategy they drew from.
  for (const box of await page.locator("#t-bots input").all()) {
    await box.setChecked(["battle/delta-nash", "battle/delta-nash:strong"].includes(await box.inputValue()));
  }
  await page.locator("#t-games").fill("2");
  await page.getByTestId("t-explain").check();
  await page.getByTestId("t-start").click();
  await titleOnce(page, "finished");
  await page.getByTestId("replay-0").click();
  const view = page.getByTestId("r-view");
  await page.getByTestId("r-step").filter({ hasText: /^decision 1 of \d+$/ }).waitFor();
  // The recorded decision's reasoning: its strategy drawn as bars, all it said below.
  assert.ok(await view.locator("[data-testid=bars-strategy] .bar").count() >= 1, "the strategy the bot drew from");
  assert.equal(await view.locator("details summary", { hasText: "everything it said" }).count(), 1);
  assert.equal(await view.getByText("This bot gives no explanation.").count(), 0);
  const first = await view.innerHTML();
  await page.getByTestId("r-forward").click();
  await page.getByTestId("r-step").filter({ hasText: /^decision 2 of / }).waitFor();
  assert.notEqual(await view.innerHTML(), first);
  assert.ok(await view.locator("[data-testid=bars-strategy] .bar").count() >= 1, "each decision has its own");
  await page.getByTestId("t-replay").scrollIntoViewIfNeeded();
  await screenshot(page, "tournament-replay-explained.png");
  assert.deepEqual(errors, []);
});

test("a tournament starts from openings the server lists, with a game clock", async () => {
  // The operator's own suite beside the shipped ones: two battle positions of the paper's set-up.
  const shipped = readFileSync(path.resolve("../../openings/battle-thesis.txt"), "utf8");
  const positions = shipped.split("\n").filter((l) => l.startsWith("{")).slice(0, 2);
  mkdirSync(path.join(dataDir, "openings"), { recursive: true });
  writeFileSync(path.join(dataDir, "openings", "club-night.txt"), ["# Our club's two favourite battle set-ups.", ...positions, ""].join("\n"));
  const errors = [];
  const page = await openPlayground(OPERATOR, errors);
  const sent = [];
  page.on("websocket", (socket) => socket.on("framesent", ({ payload }) => sent.push(String(payload))));
  const received = receivedFrames(page);
  await page.reload();
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  await page.getByRole("button", { name: "Tournament" }).click();
  const offered = await page.locator("[data-testid=t-openings] option").evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(offered, ["", "club-night", "battle-thesis", "battle-delta", "stud-table-4-1", "sevens-paper", "sugoroku-paper"]);
  await page.getByTestId("t-game").selectOption("battle");
  for (const box of await page.locator("#t-bots input").all()) {
    await box.setChecked(["battle/random", "battle/nash"].includes(await box.inputValue()));
  }
  await page.getByTestId("t-openings").selectOption("club-night");
  await page.getByTestId("t-openings-about").filter({ hasText: "Our club's two favourite battle set-ups." }).waitFor();
  await page.getByTestId("t-tc").fill("60+1");
  await page.locator("#t-games").fill("2");
  await page.getByTestId("t-start").click();
  const { done, total } = await titleOnce(page, "finished");
  assert.equal(done, total);
  const title = await page.getByTestId("t-title").textContent();
  assert.match(title, / · openings club-night · clock 60\+1$/);
  await screenshot(page, "tournament-openings-clock.png");
  // On the wire: the request named the suite (never its path or content) and carried the clock.
  const run = sent.map((f) => JSON.parse(f)).find((m) => m.op === "tournament.run");
  assert.equal(run.openings, "club-night");
  assert.deepEqual(run.policy, { tc: "60+1" });
  // The page was shown the stored spec: the suite's two positions copied in, and the clock.
  const listed = received.map((f) => JSON.parse(f)).map((m) => m.result?.spec).filter((spec) => spec?.openings).at(-1);
  assert.equal(listed.openings.name, "club-night");
  assert.equal(listed.openings.openings.length, 2);
  assert.equal(listed.policy.tc, "60+1");
  assert.deepEqual(errors, []);
});

test("a transcript file of one's own replays in the page, never sent to the server", async () => {
  const file = path.join(dataDir, "evening.jsonl");
  execFileSync(binary, ["match", "--game", "rps", "--bot", "example/rps:preset=reader", "--bot", "example/rps:preset=rock-lover",
    "--games", "2", "--seed", "5", "--game-option", "rounds=3", "--transcript", file], { stdio: "ignore" });
  const errors = [];
  const page = await openPlayground(PLAYER, errors);
  const sent = [];
  page.on("websocket", (socket) => socket.on("framesent", ({ payload }) => sent.push(String(payload))));
  await page.getByTestId("t-transcript-file").setInputFiles(file);
  await page.getByTestId("r-step").filter({ hasText: /^decision 1 of 12$/ }).waitFor();
  const heading = await page.locator("[data-testid=t-replay] h3").textContent();
  // Each seat's points over the file's two games.
  const outcomes = readFileSync(file, "utf8").split("\n").filter((l) => l.includes('"type":"outcome"')).map((l) => JSON.parse(l));
  assert.equal(outcomes.length, 2);
  const totals = [0, 1].map((seat) => outcomes.reduce((sum, o) => sum + o.scores[seat], 0));
  assert.equal(heading, `Replay of evening.jsonl: example/rps vs example/rps → ${totals.join(" : ")}`);
  const first = await page.getByTestId("r-view").innerHTML();
  await page.getByTestId("r-forward").click();
  await page.getByTestId("r-step").filter({ hasText: /^decision 2 of 12$/ }).waitFor();
  assert.notEqual(await page.getByTestId("r-view").innerHTML(), first);
  await page.getByTestId("r-back").click();
  await page.getByTestId("r-step").filter({ hasText: /^decision 1 of 12$/ }).waitFor();
  await screenshot(page, "tournament-replay-file.png");
  // Read by the page alone: no line the page sent carries the transcript.
  assert.ok(sent.every((f) => !f.includes('"type":"decision"') && !f.includes("evening")), "the transcript went to the server");
  // A file that is no transcript is said so on screen.
  await page.getByTestId("t-transcript-file").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("{\"a\": 1}\n") });
  await page.getByText("notes.txt is not a yomi transcript").waitFor();
  assert.deepEqual(errors, []);
});

test("a player's page sees only the tournaments it starts, on screen and on the wire", async () => {
  const errors = [];
  const page = await openPlayground(PLAYER, errors);
  const frames = receivedFrames(page);
  await page.reload();
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  await page.getByRole("button", { name: "Tournament" }).click();
  assert.equal(await page.getByTestId("t-browse").isVisible(), false, "no browsing for a player");
  await page.getByTestId("t-game").selectOption("rps");
  await page.locator("#t-games").fill("4");
  await page.locator("#t-seed").fill("99");
  await page.getByTestId("t-start").click();
  const { done, total } = await titleOnce(page, "finished");
  assert.equal(done, total);
  await screenshot(page, "tournament-player.png");
  // Asked directly from the page's origin, the server names none of the operator's.
  const asked = await page.evaluate(async (ids) => {
    const { Client } = await import("/yomi.js");
    const client = await Client.connect(`ws://${location.host}/ws`);
    const answers = [];
    for (const ask of [() => client.tournaments(), ...ids.flatMap((id) => [() => client.showTournament(id), () => client.tournamentGame(id, 0)])]) {
      answers.push(await ask().then(() => "answered", (e) => e.code));
    }
    client.close();
    return answers;
  }, Object.values(made));
  assert.deepEqual(asked, ["unauthorized", ...Object.values(made).flatMap(() => ["not_found", "not_found"])]);
  // On the wire: nothing of the operator's tournaments reached the page.
  assert.ok(frames.length > 10, `${frames.length} frames recorded`);
  for (const frame of frames) {
    for (const id of Object.values(made)) {
      const named = frame.includes(`"${id}"`) && !frame.includes(`no tournament \`${id}\``) && !frame.includes(`tournament \`${id}\` has no`);
      assert.ok(!named, `the operator's tournament ${id} reached a player's page: ${frame.slice(0, 300)}`);
    }
    assert.ok(!/"games_per_pair":(4000|20000)\b/.test(frame), `another's tournament spec reached the page: ${frame.slice(0, 300)}`);
  }
  assert.deepEqual(errors, []);
});
