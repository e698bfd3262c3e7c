// The playground in a real headless Chromium: a whole battle against delta-nash through the UI,
// a personality change mid-game that shows in the bot's next explanation, and a screenshot.
// Run by scripts/test-web.sh, which installs Chromium and playwright-core.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { startServer } from "../test/server.js";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARTIFACTS = process.env.YOMI_WEB_ARTIFACTS ?? path.resolve("../../target/web-artifacts");

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test("a battle against delta-nash, played to the end through the page", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(`http://${server.http}/`);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
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
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, "playground-battle.png"), fullPage: true });
  assert.deepEqual(pageErrors, []);
});

test("the services and tournament tabs", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(`http://${server.http}/`);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();

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
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, "playground-services.png"), fullPage: true });

  await page.getByRole("button", { name: "Tournament" }).click();
  await page.getByTestId("t-game").selectOption("rps");
  await page.locator("#t-games").fill("6");
  await page.getByTestId("t-start").click();
  await page.locator("table.standings").waitFor({ timeout: 60000 });
  const rows = await page.locator("table.standings tr").count();
  assert.ok(rows >= 3, `standings with ${rows - 1} bots`);
  assert.match(await page.locator("#t-count").textContent(), /finished/);
  await page.screenshot({ path: path.join(ARTIFACTS, "playground-tournament.png"), fullPage: true });
  assert.deepEqual(pageErrors, []);
});
