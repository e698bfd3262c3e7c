// The playground when the operator keeps people's games as records (`yomi serve
// --record-people`): the play tab says so on screen, and a game of rock-paper-scissors played
// through the page lands in the data directory's record set, the person's moves and nothing
// else; without the flag the page says nothing and nothing is kept.
// Run by scripts/test-web.sh, which installs Chromium and playwright-core.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launchChromium } from "./chromium.js";
import { startServer } from "../test/server.js";

const ARTIFACTS = process.env.YOMI_WEB_ARTIFACTS ?? path.resolve("../../target/web-artifacts");

let browser;
const dirs = [];
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server on a fresh data directory with `extra` flags, and the playground open on it. */
async function playground(extra) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "yomi-recording-"));
  dirs.push(dataDir);
  const server = await startServer(["--data-dir", dataDir, ...extra]);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(server.playground);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  return { server, page, dataDir };
}

/** Plays the example's rps game through its view, always rock, until the verdict shows. */
async function playRock(page) {
  await page.getByTestId("game").selectOption("rps");
  await page.getByTestId("bot").selectOption("example/rps");
  await page.getByTestId("pace").uncheck();
  await page.getByTestId("start").click();
  let thrown = 0;
  for (; thrown < 20; thrown++) {
    const rock = page.locator('[data-testid=action][data-hand="rock"]');
    const verdict = page.getByTestId("verdict");
    await Promise.race([rock.waitFor(), verdict.waitFor()]);
    if (await verdict.isVisible()) break;
    await rock.click();
    await page.getByTestId("rps-round").nth(thrown).waitFor();
  }
  return thrown;
}

test("a person's game is kept only when the page says it is", async () => {
  const { server, page, dataDir } = await playground(["--record-people", "designer"]);
  try {
    const notice = page.getByTestId("recording");
    assert.ok(await notice.isVisible(), "the play tab says games are recorded");
    assert.match(await notice.textContent(), /recorded.*record sets designer-GAME/);
    const thrown = await playRock(page);
    assert.equal(thrown, 5);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "playground-recording.png"), fullPage: true });
    const file = path.join(dataDir, "humans", "designer-rps.jsonl");
    for (let i = 0; i < 50 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    const records = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(records.length, 5, "the person's five throws, not the bot's");
    for (const r of records) assert.deepEqual([r.seat, r.action], [0, "rock"]);
  } finally {
    await page.close();
    await server.stop();
  }
  const off = await playground([]);
  try {
    assert.ok(!(await off.page.getByTestId("recording").isVisible()), "no notice when nothing is kept");
    assert.equal(await playRock(off.page), 5);
    assert.ok(!existsSync(path.join(off.dataDir, "humans")), "and nothing is kept");
  } finally {
    await off.page.close();
    await off.server.stop();
  }
});
