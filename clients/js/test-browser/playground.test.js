// The playground in a real headless Chromium: a whole battle against delta-nash through the UI,
// where the page never holds the bot's choice (its WebSocket frames recorded), a personality change mid-game that shows in
// the bot's next explanation, a stud game against the fuzzy player with its rule activations
// drawn, a three-player sevens game, rock-paper-scissors drawn by the example plugin's own view,
// "New game" mid-game, option controls that give back every schema value, the dice and roles
// plugins' tabs, the services and tournament tabs, the generic view where a plugin's view is
// missing or fails, and every view at 1280 px and at a phone's 390 px with a screenshot of each;
// no page may scroll sideways.
// Run by scripts/test-web.sh, which installs Chromium and playwright-core.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launchChromium } from "./chromium.js";
import { startServer } from "../test/server.js";

const ARTIFACTS = process.env.YOMI_WEB_ARTIFACTS ?? path.resolve("../../target/web-artifacts");

let server;
let browser;
let dataDir;
before(async () => {
  // A data directory of its own, so the roles service's groups start empty.
  dataDir = mkdtempSync(path.join(tmpdir(), "yomi-playground-"));
  server = await startServer(["--data-dir", dataDir]);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh page on the playground, connected; page errors are collected in `errors`. */
async function openPlayground(errors, width = 1280) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  // The URL `yomi serve --http` prints: the page trades its token for a cookie.
  await page.goto(server.playground);
  await page.getByTestId("status").filter({ hasText: "connected" }).waitFor();
  return page;
}

/** Saves a screenshot, after checking that nothing sticks out sideways. */
async function screenshot(page, name) {
  await assertNoOverflow(page, name);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

/** The page must not scroll sideways: no element reaches past the viewport's right edge (but for
 * what a box that scrolls on its own holds, as a wide table inside its card). */
async function assertNoOverflow(page, name) {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = (n) => ["auto", "scroll"].includes(getComputedStyle(n).overflowX);
    const inScroller = (n) => { for (let p = n.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return true; return false; };
    const wide = [...document.querySelectorAll("body *")]
      .filter((n) => n.getClientRects().length && n.getBoundingClientRect().right > width + 1 && !inScroller(n))
      .map((n) => `${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ""}.${[...n.classList].join(".")} (${Math.round(n.getBoundingClientRect().right)} px)`);
    return { scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
  });
  assert.ok(overflow.scroll <= overflow.width && overflow.wide.length === 0,
    `${name}: the page is ${overflow.scroll} px wide in a ${overflow.width} px window: ${overflow.wide.join(", ")}`);
}

/** Records every WebSocket frame the page sends and receives, in order, each parsed, with the
 * time it was seen: what the person's browser holds, whatever the screen shows. */
function recordFrames(page) {
  const frames = [];
  page.on("websocket", (socket) => {
    const keep = (direction) => ({ payload }) => {
      for (const line of String(payload).split("\n").filter(Boolean)) {
        frames.push({ direction, at: Date.now(), text: line, message: JSON.parse(line) });
      }
    };
    socket.on("framesent", keep("sent"));
    socket.on("framereceived", keep("received"));
  });
  return frames;
}

/**
 * The bot's seats are the server's: over the wire the page never asks for a bot's decision
 * (`agent.act`), never gets a turn of a seat but yours, and sees a bot's decision (`explained`)
 * only inside the event of a step already played. `hidden(frame)` names anything else the
 * frame must not carry before the game's last event (stud: the bot's face-down cards).
 * Returns the match's received events, for the caller's own checks.
 */
function assertOnlyYourSeat(frames, hidden = () => null) {
  const matchFrames = frames.filter((f) => f.message.op?.startsWith("match.") || f.message.event?.startsWith("match.") || f.message.event === "your_turn");
  assert.ok(matchFrames.length > 0, "the page's match was recorded");
  assert.deepEqual(frames.filter((f) => f.direction === "sent" && f.message.op === "agent.act").map((f) => f.text), [], "the page asked for a bot's decision");
  const events = frames.filter((f) => f.direction === "received" && f.message.event);
  for (const frame of events) {
    const { event, seat } = frame.message;
    if (event === "your_turn" || event === "match.event") assert.equal(seat, 0, `a line of another seat reached the page: ${frame.text}`);
    if (event !== "match.event") assert.ok(!frame.text.includes('"explained"'), `a bot's decision outside a step's event: ${frame.text}`);
  }
  const lastEvent = events.findLastIndex((f) => f.message.event === "match.event");
  events.slice(0, lastEvent).forEach((frame) => {
    const leak = hidden(frame);
    assert.equal(leak, null, `${leak} reached the page before the game showed it: ${frame.text}`);
  });
  return events;
}

test("a battle against delta-nash, played to the end through the page", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByTestId("game").selectOption("battle");
  await page.getByTestId("bot").selectOption("battle/delta-nash");
  await page.getByTestId("preset").selectOption("human-like");
  // The bot at once, without its human pace: this test is about what the page holds (the rps
  // test covers the pace).
  await page.getByTestId("pace").uncheck();
  const frames = recordFrames(page);
  await page.getByTestId("start").click();

  // Turn 1: both choose at once; nothing of the bot's choice shows until the turn is played.
  await page.getByTestId("action").first().waitFor();
  assert.equal(await page.locator("[data-testid=log] li", { hasText: "bot (seat" }).count(), 0);
  assert.equal(await page.getByTestId("bot-action").count(), 0);
  assert.equal(await page.locator("[data-testid=bars-strategy]").count(), 0);

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
  assert.ok(await page.locator("[data-testid=bars-true_equilibrium] .bar").count() >= 2, "the equilibrium labelled by action");
  // On the wire: each step's event carries the bot's decision of that step, and nothing before.
  const events = assertOnlyYourSeat(frames);
  const explained = events.filter((f) => f.text.includes('"explained"'));
  assert.ok(explained.length >= 3, `the bot's decisions came with ${explained.length} step events`);
  // The log counts from the newest entry down, as it is shown newest first.
  assert.equal(await page.getByTestId("log").evaluate((ol) => ol.reversed), true);
  await screenshot(page, "playground-battle.png");
  assert.deepEqual(pageErrors, []);
});

test("a stud game against the fuzzy player shows its rule activations as pictures", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByTestId("game").selectOption("stud");
  assert.equal(await page.getByTestId("bot").inputValue(), "stud/fuzzy", "a first visit plays the fuzzy player");
  const frames = recordFrames(page);
  await page.getByTestId("start").click();
  for (let turn = 0; turn < 300; turn++) {
    const action = page.getByTestId("action").first();
    const verdict = page.getByTestId("verdict");
    await Promise.race([action.waitFor(), verdict.waitFor()]);
    if (await verdict.isVisible()) break;
    // Call (or check) rather than fold, so the hand goes on and the bot keeps deciding.
    const keepPlaying = page.getByTestId("action").filter({ hasNotText: /drop|fold/ }).first();
    await ((await keepPlaying.count()) ? keepPlaying : action).click();
  }
  assert.match(await page.getByTestId("verdict").textContent(), /(You win|Draw|The bot wins) — scores/);
  // On the wire: the bot's reasoning (which weighs its face-down cards) comes only with the
  // game's last event, and no card reaches the page before then but in your turns' own view
  // and the steps' public events.
  const ownView = (frame) => ["your_turn", "match.event"].includes(frame.message.event) && !frame.text.includes('"explained"');
  assertOnlyYourSeat(frames, (frame) => (ownView(frame) ? null : frame.text.match(/"[2-9TJQKA][cdhs]"/)?.[0] ?? null));
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
  // Every method's params start from its signature: the first service works as it comes.
  await page.getByTestId("service-call").click();
  await page.locator("#service-compare > div").first().waitFor();
  assert.equal(await page.getByTestId("service-error").count(), 0, await page.getByTestId("service-log").textContent());
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
  await page.getByTestId("t-title").filter({ hasText: "finished" }).waitFor({ timeout: 60000 });
  const rows = await page.locator("[data-testid=t-standings-table] tr").count();
  assert.ok(rows >= 3, `standings with ${rows - 1} bots`);
  assert.match(await page.locator("#t-count").textContent(), /finished/);
  // The rating chart draws a line for every bot, each through the finished games' points.
  const lines = page.locator("[data-testid=t-chart] svg polyline");
  assert.equal(await lines.count(), rows - 1, "one rating line per bot");
  for (const points of await lines.evaluateAll((ls) => ls.map((l) => l.getAttribute("points")))) {
    assert.ok(points.split(" ").length >= 2, `a line through the points of its games: ${points}`);
  }
  assert.equal(await page.locator("[data-testid=t-chart] svg").evaluate((s) => s.textContent.includes("[object")), false);
  // Seats read as bots, not as JSON.
  assert.match(await page.locator("[data-testid=t-games-table] tr").nth(1).textContent(), /example\/rps\S* vs example\/rps/);
  await screenshot(page, "playground-tournament.png");
  // The replay viewer steps through a recorded game with the game's own view, both ways.
  await page.getByTestId("replay-0").click();
  const step = page.getByTestId("r-step");
  await step.filter({ hasText: /^decision 1 of \d+$/ }).waitFor();
  const first = await page.getByTestId("r-view").innerHTML();
  await page.getByTestId("r-forward").click();
  await step.filter({ hasText: /^decision 2 of / }).waitFor();
  assert.notEqual(await page.getByTestId("r-view").innerHTML(), first, "the view moves with the step");
  await page.getByTestId("r-back").click();
  await step.filter({ hasText: /^decision 1 of / }).waitFor();
  assert.equal(await page.getByTestId("r-view").innerHTML(), first, "and back again");
  await screenshot(page, "playground-replay.png");
  assert.deepEqual(pageErrors, []);
});

test("every option control gives back each value of the schema exactly, for every bot and preset", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  const mismatches = await page.evaluate(async () => {
    const { renderOptions } = await import("/views.js");
    const { Client } = await import("/yomi.js");
    const client = await Client.connect(`ws://${location.host}/ws`);
    const catalog = await client.catalog();
    client.close();
    const found = [];
    for (const bot of catalog.bots) {
      for (const preset of [{ name: "(defaults)", options: {} }, ...bot.presets]) {
        const expected = Object.fromEntries(bot.options.map((o) => [o.name, preset.options?.[o.name] ?? o.default]));
        const read = renderOptions(document.createElement("fieldset"), bot.options, preset.options)();
        for (const [name, value] of Object.entries(expected)) {
          if (JSON.stringify(read[name]) !== JSON.stringify(value)) found.push(`${bot.id} ${preset.name} ${name}: ${JSON.stringify(value)} came back as ${JSON.stringify(read[name])}`);
        }
      }
    }
    return found;
  });
  assert.deepEqual(mismatches, []);
  assert.deepEqual(pageErrors, []);
});

test("a method's params start from its signature", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  const templates = await page.evaluate(async () => {
    const { paramsTemplate } = await import("/views.js");
    return [
      paramsTemplate('{parties?: thesis|delta-experiment|[[..],[..]], active: "A,D", hp?: [6], turn?} → {value}'),
      paramsTemplate("{n, player?} -> {faces}"),
      paramsTemplate("{} -> the 18 tendency values"),
      paramsTemplate("no signature at all"),
    ];
  });
  assert.deepEqual(templates, ['{"active":"A,D"}', '{"n":null}', "{}", "{}"]);
  assert.deepEqual(pageErrors, []);
});

test("New game mid-game and after switching the game starts afresh; three players end with who won", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByTestId("game").selectOption("stud");
  await page.getByTestId("start").click();
  await page.getByTestId("action").first().waitFor();
  await page.getByTestId("stud-you").waitFor();
  // Switching the game clears the stud board; New game starts sevens while stud was running.
  await page.getByTestId("game").selectOption("sevens");
  assert.equal(await page.getByTestId("stud-you").count(), 0, "the stud board is gone");
  await page.getByTestId("start").click();
  await page.getByTestId("hand").waitFor();
  await page.getByTestId("action").first().click();
  // New game in the middle of the sevens game: a fresh log and board.
  await page.getByTestId("start").click();
  await page.getByTestId("log").locator("li", { hasText: "new sevens game" }).waitFor();
  assert.equal(await page.getByTestId("log").locator("li").filter({ hasText: "you:" }).count(), 0);
  for (let turn = 0; turn < 200; turn++) {
    const action = page.getByTestId("action").first();
    const verdict = page.getByTestId("verdict");
    await Promise.race([action.waitFor(), verdict.waitFor()]);
    if (await verdict.isVisible()) break;
    await action.click();
  }
  const verdict = await page.getByTestId("verdict").textContent();
  assert.match(verdict, /^(You win|Draw|The bot in seat [12] wins|The bots in seats 1 and 2 win) — scores/);
  assert.equal(await page.getByTestId("error").count(), 0);
  await screenshot(page, "playground-sevens.png");
  assert.deepEqual(pageErrors, []);
});

test("rock-paper-scissors is drawn by the example plugin's own view", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  await page.getByTestId("game").selectOption("rps");
  await page.getByTestId("bot").selectOption("example/rps");
  await page.getByTestId("preset").selectOption("reader");
  const frames = recordFrames(page);
  await page.getByTestId("start").click();
  let thrown = 0;
  for (let turn = 0; turn < 20; turn++) {
    const rock = page.locator('[data-testid=action][data-hand="rock"]');
    const verdict = page.getByTestId("verdict");
    await Promise.race([rock.waitFor(), verdict.waitFor()]);
    if (await verdict.isVisible()) break;
    // The view's own buttons, one per legal hand; the board lists every throw so far.
    assert.deepEqual(await page.locator("[data-testid=action]").evaluateAll((b) => b.map((n) => n.dataset.hand)), ["rock", "paper", "scissors"]);
    assert.equal(await page.getByTestId("rps-round").count(), thrown);
    await rock.click();
    // Human pace runs on the server: the page only says the bot is deciding.
    if (thrown === 0) await page.getByTestId("bot-thinking").waitFor();
    thrown++;
  }
  assert.equal(thrown, 5, "five throws, as the view's first game asks");
  // Human pace: each throw's event, with the bot's decision, came no sooner than the bot's
  // suggested think time after the throw began (your turn; the bot was asked at the same time).
  const events = assertOnlyYourSeat(frames);
  const turns = events.filter((f) => f.message.event === "your_turn");
  const stepEvents = events.filter((f) => f.message.event === "match.event");
  assert.equal(stepEvents.length, 5);
  stepEvents.forEach((event, i) => {
    const [decision] = event.message.explained;
    const waited = event.at - turns[i].at;
    assert.ok(decision.think_ms > 0, "think_ms is a positive suggestion");
    assert.ok(waited >= decision.think_ms - 50, `throw ${i + 1}: the bot's ${decision.think_ms} ms came after ${waited} ms`);
  });
  // The view folds each throw's event in, so the last throw shows after the game too.
  await page.getByTestId("rps-round").nth(4).waitFor();
  const results = await page.getByTestId("rps-round").evaluateAll((rows) => rows.map((r) => r.className));
  assert.deepEqual(results.slice(1), ["lost", "lost", "lost", "lost"], "the reader beats your last hand");
  assert.match(await page.getByTestId("rps-score").textContent(), /^You \d(\.5)? : \d(\.5)? Bot$/);
  assert.equal(await page.getByTestId("log").locator("li", { hasText: "you: rock (beats scissors)" }).count(), 5);
  assert.ok(await page.getByTestId("log").locator("li", { hasText: "bot (seat 1): paper (beats rock)" }).count() >= 4);
  assert.match(await page.getByTestId("explain").getByTestId("rps-reason").textContent(), /^Why: beats your last hand \(your last hand was rock\)\.$/);
  assert.equal(await page.getByTestId("error").count(), 0);
  await screenshot(page, "playground-rps.png");
  assert.deepEqual(pageErrors, []);
});

test("a game whose plugin has no view, or a view that fails, is drawn generically", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  const drawn = await page.evaluate(async () => {
    const { gameDrawing } = await import("/plugins.js");
    const catalog = { games: [{ name: "g", plugin: "p" }], bots: [] };
    const broken = { render() { throw new Error("a view's bug"); }, label: () => undefined, update() { throw new Error("another"); } };
    const none = gameDrawing(new Map(), catalog, "g");
    const failing = gameDrawing(new Map([["p", broken]]), catalog, "g");
    const observation = { round: 1 };
    return [none.render(observation, 0).outerHTML, failing.render(observation, 0).outerHTML, none.label({ x: 1 }), failing.label("rock"),
      none.actions(["rock"], () => {}), failing.update(observation, {})];
  });
  assert.deepEqual(drawn, ['<pre>{\n "round": 1\n}</pre>', '<pre>{\n "round": 1\n}</pre>', '{"x":1}', "rock", undefined, undefined]);
  assert.deepEqual(pageErrors, []);
});

for (const width of [1280, 390]) {
  test(`every game's view and every tab at ${width} px`, async () => {
    const pageErrors = [];
    const page = await openPlayground(pageErrors, width);
    const games = await page.getByTestId("game").locator("option").evaluateAll((options) => options.map((o) => o.value));
    assert.ok(games.length >= 4, `games: ${games}`);
    for (const game of games) {
      await page.getByTestId("game").selectOption(game);
      await page.getByTestId("start").click();
      await Promise.race([page.getByTestId("action").first().waitFor(), page.getByTestId("verdict").waitFor()]);
      await screenshot(page, `view-${game}-${width}.png`);
    }
    await page.getByRole("button", { name: "Dice" }).click();
    await page.getByTestId("dice-roll").click();
    await page.getByTestId("dice-features").waitFor();
    await screenshot(page, `view-dice-${width}.png`);
    await page.getByRole("button", { name: "Roles" }).click();
    await page.getByTestId("roles-deal").click();
    await page.getByTestId("roles-history").waitFor();
    await screenshot(page, `view-roles-${width}.png`);
    await page.getByRole("button", { name: "Services" }).click();
    await screenshot(page, `view-services-${width}.png`);
    await page.getByRole("button", { name: "Tournament" }).click();
    await screenshot(page, `view-tournament-${width}.png`);
    assert.deepEqual(pageErrors, []);
  });
}

test("the stud view draws your hole cards apart and, after a showdown, the bot's whole hand", async () => {
  const pageErrors = [];
  const page = await openPlayground(pageErrors);
  const drawn = await page.evaluate(async () => {
    const { render: studView } = await import("/plugins/stud/view.js");
    const seen = { seat: 0, game: 1, games: 1, turn: 5, phase: "bet", pot: 40, paid: [20, 20], chips: [100, 100],
      hole: ["2h", "3s", "Kd"], up: ["7h", "8c", "9d", "Tc"], opp_hole_count: 3, opp_up: ["As", "Ad", "4c", "5c"] };
    const cards = (view, side) => [...view.querySelector(`[data-testid=stud-${side}]`).querySelectorAll(".card")];
    const during = studView(seen);
    const after = studView({ ...seen, shown_hands: [["2h", "3s", "7h", "8c", "9d", "Tc", "Kd"], ["Qs", "Qh", "As", "Ad", "4c", "5c", "Jd"]] });
    return {
      yourHole: cards(during, "you").filter((c) => c.classList.contains("hole")).map((c) => c.textContent),
      botDuring: cards(during, "bot").map((c) => c.textContent),
      botAfter: cards(after, "bot").map((c) => c.textContent),
    };
  });
  assert.deepEqual(drawn.yourHole, ["2h", "3s", "Kd"]);
  assert.deepEqual(drawn.botDuring, ["?", "?", "?", "As", "Ad", "4c", "5c"]);
  assert.deepEqual(drawn.botAfter, ["Qs", "Qh", "As", "Ad", "4c", "5c", "Jd"]);
  assert.deepEqual(pageErrors, []);
});
