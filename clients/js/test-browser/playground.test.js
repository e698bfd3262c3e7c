// The playground in a real headless Chromium: a whole battle against delta-nash through the UI,
// a personality change mid-game that shows in the bot's next explanation, a stud game against
// the fuzzy player with its rule activations drawn, the dice and roles views, the services and
// tournament tabs, with a screenshot of each.
// Run by scripts/test-web.sh, which installs Chromium and playwright-core.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startServer } from "../test/server.js";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARTIFACTS = process.env.YOMI_WEB_ARTIFACTS ?? path.resolve("../../target/web-artifacts");

let server;
let browser;
let dataDir;
before(async () => {
  // A data directory of its own, so the roles service's groups start empty.
  dataDir = mkdtempSync(path.join(tmpdir(), "yomi-playground-"));
  server = await startServer(["--data-dir", dataDir]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh page on the playground, connected; page errors are collected in `errors`. */
async function openPlayground(errors) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  // The URL `yomi serve --http` prints: the page trades its token for a cookie.
  await page.goto(server.playground);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  return page;
}

async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

test("a battle against delta-nash, played to the end through the page", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByTestId("game").selectOption("battle");
  await page.getByTestId("bot").selectOption("battle/delta-nash");
  await page.getByTestId("preset").selectOption("human-like");
  await page.getByTestId("start").click();

  const personalities = [];
  let changed = false;
  for (let turn = 0; turn < 60; turn++) {
    const action = page.getByTestId("action").first();
    const verdict = page.getByTestId("verdict");
    await Promise.race([action.waitFor(), verdict.waitFor()]);
    if (await verdict.isVisible()) break;
    const personality = page.getByTestId("personality");
    if (await personality.count()) personalities.push(await personality.textContent());
    if (!changed && personalities.length > 0) {
      // Mid-game: a much noisier personality, applied with agent.configure.
      await page.locator('[data-option="delta"]').evaluate((input) => {
        input.value = "0.9";
        input.dispatchEvent(new Event("input"));
      });
      await page.getByTestId("apply").click();
      await page.getByTestId("log").filter({ hasText: "personality applied" }).waitFor();
      changed = true;
    }
    await action.click();
  }
  const verdict = await page.getByTestId("verdict").textContent();
  assert.match(verdict, /(You win|Draw|The bot wins) — scores/);
  assert.ok(personalities.length >= 2, `saw ${personalities.length} explanations`);
  const before = personalities[0];
  const afterChange = await page.getByTestId("personality").textContent();
  assert.match(before, /"delta":0\.15/);
  assert.match(afterChange, /"delta":0\.9/);
  assert.equal(await page.getByTestId("error").count(), 0);
  assert.ok(await page.locator("[data-testid=bars-strategy] .bar").count() >= 1, "strategy bars drawn");
  await screenshot(page, "playground-battle.png");
  assert.deepEqual(pageErrors, []);
});

test("a stud game against the fuzzy player shows its rule activations as pictures", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByTestId("game").selectOption("stud");
  await page.getByTestId("bot").selectOption("stud/fuzzy");
  await page.getByTestId("start").click();
  for (let turn = 0; turn < 200; turn++) {
    const action = page.getByTestId("action").first();
    const verdict = page.getByTestId("verdict");
    await Promise.race([action.waitFor(), verdict.waitFor()]);
    if (await verdict.isVisible()) break;
    // Call (or check) rather than fold, so the hand goes on and the bot keeps deciding.
    const keepPlaying = page.getByTestId("action").filter({ hasNotText: /drop|fold/ }).first();
    await ((await keepPlaying.count()) ? keepPlaying : action).click();
  }
  assert.match(await page.getByTestId("verdict").textContent(), /(You win|Draw|The bot wins) — scores/);
  const botMoves = await page.getByTestId("fuzzy-mini").count();
  assert.ok(botMoves >= 1, "a small rule picture beside each bot move in the log");
  assert.equal(await page.locator("[data-testid=log] li", { hasText: "bot (seat" }).count(), botMoves);
  // The big picture: 18 rules (turn × bet × hand), the ones that fired drawn with their strength.
  const cells = page.locator("[data-testid=fuzzy] svg.fuzzy-grid rect[data-rule]");
  assert.equal(await cells.count(), 18);
  const strengths = await cells.evaluateAll((rects) => rects.map((r) => Number(r.dataset.strength)));
  assert.ok(strengths.some((w) => w > 0) && strengths.every((w) => w >= 0 && w <= 1), `${strengths}`);
  assert.equal(await page.locator("[data-testid=fuzzy] svg.superiority circle").count(), 2);
  assert.equal(await page.getByTestId("error").count(), 0);
  await screenshot(page, "playground-stud.png");
  assert.deepEqual(pageErrors, []);
});

test("the dice view rolls plain, natural and controlled dice side by side", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByRole("button", { name: "Dice" }).click();
  await page.getByTestId("dice-roll").click();
  await page.getByTestId("dice-features").waitFor();
  for (const kind of ["plain", "natural", "controlled"]) {
    const column = page.getByTestId(`dice-${kind}`);
    assert.equal(await column.locator("svg.faces rect").count(), 50, kind);
    assert.match(await column.getByTestId("dice-err").textContent(), /^\d+\.\d{3}$/, kind);
  }
  // Natural dice are built to an Err of 0; plain dice are not held to anything.
  assert.equal(await page.getByTestId("dice-natural").getByTestId("dice-err").textContent(), "0.000");
  for (const kind of ["plain", "natural", "controlled"]) {
    assert.match(await page.getByTestId(`dice-${kind}`).getByTestId("dice-traps").textContent(), /on the track: \d+ trap hits \(red\), chance expects \d+\.\d/);
  }
  assert.equal(await page.locator("[data-testid=dice-features] svg text").filter({ hasText: /^F\d+$/ }).count(), 15);
  await screenshot(page, "playground-dice.png");
  assert.deepEqual(pageErrors, []);
});

test("the roles view deals a group's games and shows its history and the next draw", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByRole("button", { name: "Roles" }).click();
  await page.getByTestId("roles-preset").selectOption("firm");
  await page.getByTestId("roles-deal-many").click();
  await page.getByTestId("roles-summary").filter({ hasText: "10 games played" }).waitFor();
  const history = page.getByTestId("roles-history");
  assert.equal(await history.locator("tr").count(), 6); // a header and five players
  assert.equal(await history.locator("tr").nth(1).locator("td.role-cell").count(), 10);
  // Every game deals exactly one werewolf and one seer among the five.
  const perGame = await history.evaluate((table) => [...table.rows].slice(1).map((row) => [...row.querySelectorAll("td.role-cell")].map((td) => td.textContent)));
  for (let g = 0; g < 10; g++) {
    const dealt = perGame.map((row) => row[g]).sort().join("");
    assert.equal(dealt, "SVVVW", `game ${g + 1}`);
  }
  // The next draw's probabilities: each role's column sums to its count.
  const probabilities = await page.getByTestId("roles-probabilities").evaluate((table) =>
    [...table.rows].slice(1).map((row) => [...row.querySelectorAll("td.prob span")].map((s) => Number(s.textContent))));
  const sums = probabilities[0].map((_, r) => probabilities.reduce((total, row) => total + row[r], 0));
  assert.deepEqual(sums.map((x) => Math.round(x * 100) / 100), [1, 1, 3]);
  assert.match(await page.getByTestId("roles-summary").textContent(), /beta 2 · 10 games played/);
  assert.equal(await page.getByTestId("roles-error").count(), 0);
  await screenshot(page, "playground-roles.png");
  assert.deepEqual(pageErrors, []);
});

test("the services and tournament tabs", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);

  await page.getByRole("button", { name: "Services" }).click();
  await page.getByTestId("service-bot").selectOption("dice/dice");
  await page.getByTestId("service-method").selectOption("sequence");
  await page.getByTestId("service-params").fill('{"length": 30, "seed": 4}');
  await page.getByTestId("service-call").click();
  await page.getByTestId("service-log").filter({ hasText: "sequence:" }).waitFor();
  assert.match(await page.locator("#service-compare").textContent(), /"err"/);
  await page.getByTestId("service-method").selectOption("score");
  await page.getByTestId("service-params").fill('{"faces": [1,2,3,4,5,6,1,2,3,4,5,6]}');
  await page.getByTestId("service-call").click();
  await page.locator("[data-testid^=bars-features]").first().waitFor();
  // Natural, plain and controlled dice side by side: one sequence per preset, each with its Err.
  await page.getByTestId("service-method").selectOption("sequence");
  await page.getByTestId("service-params").fill('{"length": 30, "seed": 4}');
  await page.getByTestId("service-compare-presets").click();
  await page.getByTestId("service-log").filter({ hasText: "with every preset" }).waitFor();
  assert.equal(await page.locator("#service-compare > div").count(), 4); // defaults + 3 presets
  await screenshot(page, "playground-services.png");

  await page.getByRole("button", { name: "Tournament" }).click();
  await page.getByTestId("t-game").selectOption("rps");
  await page.locator("#t-games").fill("6");
  await page.getByTestId("t-start").click();
  await page.locator("table.standings").waitFor({ timeout: 60000 });
  const rows = await page.locator("table.standings tr").count();
  assert.ok(rows >= 3, `standings with ${rows - 1} bots`);
  assert.match(await page.locator("#t-count").textContent(), /finished/);
  await screenshot(page, "playground-tournament.png");
  assert.deepEqual(pageErrors, []);
});
