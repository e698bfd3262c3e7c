// How long the tournament page takes to show a big tournament: 50 rps bots (the example bot at
// 50 biases), 9 games a pairing (11,025 games), opened from the records list in headless
// Chromium, five times. Each rep reads the page's own marks: from `tournament.show`'s request to
// the standings, crosstable and chart laid out ("shown"), the part after the reply ("drawn"), and
// the next frame after that ("painted"). A benchmark, not a test: it asserts nothing about time.
//   node test-browser/render-bench.mjs            (makes the tournament in a fresh directory)
//   YOMI_BENCH_DATA=DIR node test-browser/render-bench.mjs   (reuses DIR's, made by a first run)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launchChromium } from "./chromium.js";
import { binary, startServer } from "../test/server.js";

const BOTS = 50;
const REPS = 5;
const ID = "render-50";
const ARTIFACTS = process.env.YOMI_WEB_ARTIFACTS ?? path.resolve("../../target/web-artifacts");

const dataDir = process.env.YOMI_BENCH_DATA ?? mkdtempSync(path.join(tmpdir(), "yomi-render-bench-"));
if (!existsSync(path.join(dataDir, "made"))) {
  const bots = Array.from({ length: BOTS }, (_, i) => ["--bot", `example/rps:bias=${(i / BOTS).toFixed(2)}`]).flat();
  const started = Date.now();
  execFileSync(binary, ["tournament", "--data-dir", dataDir, "--id", ID, "--game", "rps", "--games-per-pair", "9",
    "--game-option", "rounds=10", "--no-transcripts", "--concurrency", "2", ...bots], { stdio: ["ignore", "ignore", "inherit"] });
  mkdirSync(path.join(dataDir, "made"));
  console.log(`made ${ID} in ${dataDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const server = await startServer(["--data-dir", dataDir]);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(server.playground);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  await page.getByRole("button", { name: "Tournament" }).click();
  await page.getByTestId("t-browse").click();
  const open = page.locator(`[data-testid=t-list-table] tr[data-id="${ID}"] [data-testid=t-open]`);
  const reps = [];
  for (let rep = 0; rep < REPS; rep++) {
    await page.evaluate(() => performance.clearMeasures());
    await open.click();
    await page.waitForFunction(() => performance.getEntriesByName("t-shown").length === 1);
    reps.push(await page.evaluate(async () => {
      const [shown] = performance.getEntriesByName("t-shown");
      const [drawn] = performance.getEntriesByName("t-drawn");
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
      return { shown: shown.duration, drawn: drawn.duration, painted: performance.now() - shown.startTime };
    }));
  }
  const shape = await page.evaluate(() => ({
    standings: document.querySelectorAll("[data-testid=t-standings] table")[0].rows.length - 1,
    cells: document.querySelectorAll("[data-testid=t-crosstable] td").length,
    title: document.querySelector("[data-testid=t-title]").textContent,
  }));
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, "tournament-50-bots.png"), fullPage: false });
  const ms = (xs) => xs.map((x) => Math.round(x)).join(", ");
  console.log(`${shape.title}: ${shape.standings} standings rows, ${shape.cells} crosstable cells`);
  console.log(`request → tables laid out (ms): ${ms(reps.map((r) => r.shown))}`);
  console.log(`  of which after the reply: ${ms(reps.map((r) => r.drawn))}`);
  console.log(`request → next frame (ms): ${ms(reps.map((r) => r.painted))}`);
} finally {
  await browser.close();
  await server.stop();
}
