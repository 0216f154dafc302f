// The replication lesson and the Key Visualizer, in a real browser (Debian's Chromium,
// playwright-core, the release build in web/dist/): the first screen leads into the lesson; a
// write through a single-cluster profile is stale at the other cluster until the clock passes
// the lag; a consistency token turns true then; a down cluster makes a single-cluster write
// UNAVAILABLE while a multi-cluster write fails over, and it catches up when it returns;
// conflicting writes converge on one value everywhere; the change stream lists the writes;
// every action comes as code; the Key Visualizer has a time axis, a colour legend, metric
// families, diagnostics, drill-down and hot tablets. The lesson's console runs cbt lines and
// the control words (faults with codes and latency) on the lesson's instance, and a fault
// typed there refuses or delays the lesson's buttons too; the Console tab runs
// `-instance lesson` lines on the same instance. axe-core finds no serious violation in
// the lesson. Screenshots go to target/replication-*.png. Any console or page error fails it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { setup, injectAxe, SHOTS } from "./support.mjs";

let pw;
let page;

before(async () => {
  pw = await setup();
  page = pw.page;
});

after(async () => {
  await pw?.close();
  assert.deepEqual(pw?.problems ?? [], []);
});

async function settled() {
  await page.locator("[data-testid=app][data-busy=false]").waitFor();
}

const repl = () => page.getByTestId("repl");
const cells = (cluster) => page.getByTestId(`repl-cluster-${cluster}`).getByTestId("repl-cell");

async function act(testid) {
  await repl().getByTestId(testid).click();
  await settled();
}

async function write(profile, row, value) {
  await repl().getByTestId("repl-profile").selectOption(profile);
  await repl().getByTestId("repl-row").fill(row);
  await repl().getByTestId("repl-value").fill(value);
  await act("repl-write");
}

async function outcome() {
  const o = repl().getByTestId("repl-outcome");
  return { code: await o.getAttribute("data-code"), text: await o.textContent() };
}

test("the first screen leads into a lesson, not two empty forms", async () => {
  await page.getByTestId("welcome").waitFor();
  assert.equal(await page.getByTestId("write-form").count(), 0, "no write form before there is a table");
  await page.getByTestId("welcome-replication").click();
  await settled();
  await page.getByTestId("repl-cluster-c3").waitFor();
  assert.equal(await page.locator("[data-testid=lab-tab-replication].active").count(), 1);
});

test("a write through to-c1 is stale at c2 until the clock passes the lag; the token follows", async () => {
  await write("to-c1", "user#1", "Ada");
  assert.equal((await outcome()).code, "OK");
  assert.equal(await cells("c1").first().getAttribute("data-state"), "pending");
  assert.equal(await cells("c2").first().getAttribute("data-state"), "stale");
  assert.match(await cells("c2").first().textContent(), /stale: not here yet/);
  // A read through to-c2 before the lag answers from c2's copy, without the write.
  await repl().getByTestId("repl-profile").selectOption("to-c2");
  await act("repl-read");
  assert.match((await outcome()).text, /c2 answered: no such row \(yet\)/);
  await write("to-c2", "user#1", "Ada");
  await act("repl-token");
  const token = repl().getByTestId("repl-token-state");
  assert.equal(await token.textContent(), "consistent: false");
  await fs.promises.mkdir(SHOTS, { recursive: true });
  await repl().screenshot({ path: path.join(SHOTS, "replication-lesson.png") });
  await act("repl-clock-2s");
  assert.equal(await token.textContent(), "consistent: true");
  for (const c of ["c1", "c2", "c3"]) {
    const states = await cells(c).evaluateAll((els) => els.map((e) => e.dataset.state));
    assert.ok(states.length > 0 && states.every((s) => s === "everywhere"), `${c}: ${states}`);
  }
  // The change stream lists both writes with their source clusters.
  const tail = await repl().getByTestId("repl-change").allTextContents();
  assert.ok(tail.some((l) => / c1 · user#1 · set cf:name=Ada/.test(l)), tail.join("\n"));
  assert.ok(tail.some((l) => / c2 · user#1 · set cf:name=Ada/.test(l)), tail.join("\n"));
});

test("c2 down: a single-cluster write is UNAVAILABLE, a multi-cluster one fails over, c2 catches up", async () => {
  await act("repl-toggle-c2");
  await write("to-c2", "user#2", "Grace");
  assert.equal((await outcome()).code, "UNAVAILABLE");
  await act("repl-toggle-c1");
  await write("multi", "user#2", "Grace");
  const o = await outcome();
  assert.equal(o.code, "OK");
  assert.match(o.text, /acknowledged by c3/);
  // Code for the write, in every language.
  const tabs = await repl().getByTestId("code-tab").allTextContents();
  assert.deepEqual(tabs, ["Python", "Python (sparsetable)", "Java", "Go", "Node.js", "cbt"]);
  assert.match(await repl().getByTestId("code-text").textContent(), /app_profile_id="multi"/);
  await act("repl-clock-2s");
  const stale = await cells("c2").evaluateAll((els) => els.filter((e) => e.dataset.state === "stale").length);
  assert.equal(stale, 1, "c2 received nothing while down");
  await act("repl-toggle-c2");
  await act("repl-toggle-c1");
  for (const c of ["c1", "c2", "c3"]) {
    const states = await cells(c).evaluateAll((els) => els.map((e) => e.dataset.state));
    assert.ok(states.length === 3 && states.every((s) => s === "everywhere"), `${c}: ${states}`);
  }
});

test("an increment through a multi-cluster profile is refused", async () => {
  await repl().getByTestId("repl-profile").selectOption("multi");
  await act("repl-increment");
  assert.equal((await outcome()).code, "FAILED_PRECONDITION");
  await repl().getByTestId("repl-profile").selectOption("to-c1");
  await act("repl-increment");
  assert.equal((await outcome()).code, "OK");
});

test("conflicting writes converge on one value in every cluster", async () => {
  await act("repl-conflict");
  const view = repl().getByTestId("repl-conflict-view");
  await view.waitFor();
  const before = await view.getByTestId("repl-conflict-now").allTextContents();
  assert.deepEqual(before, ["c1: from-c1", "c2: from-c2", "c3: —"]);
  await act("repl-clock-2s");
  const now = await view.getByTestId("repl-conflict-now").allTextContents();
  assert.deepEqual(now, ["c1: from-c2", "c2: from-c2", "c3: from-c2"]);
  assert.match(await view.getByTestId("repl-conflict-winner").textContent(), /Winner: from-c2 \(every cluster converged\)/);
  await repl().screenshot({ path: path.join(SHOTS, "replication-converged.png") });
});

const lessonConsole = () => repl().getByTestId("repl-console");

/** Types `line` into the lesson's console and returns its entry's text, stdout and stderr. */
async function typed(line) {
  const before = await lessonConsole().getByTestId("console-entry").count();
  const input = lessonConsole().getByTestId("console-input");
  await input.fill(line);
  await input.press("Enter");
  const entries = lessonConsole().getByTestId("console-entry");
  await entries.nth(before).waitFor();
  await settled();
  const entry = entries.nth(before);
  const text = async (id) => (await entry.getByTestId(id).count()) ? await entry.getByTestId(id).textContent() : "";
  return { failed: (await entry.getAttribute("class")).includes("failed"), stdout: await text("console-stdout"), stderr: await text("console-stderr") };
}

test("the lesson's console runs on the lesson's instance: app profiles, control words, faults", async () => {
  assert.match((await typed("lag 2s")).stdout, /replication lag: 2000000 us/);
  assert.equal((await typed("set users user#9 cf:name=Grace app-profile=to-c1")).failed, false);
  // The console's write is drawn in the clusters: at c1, stale at c2.
  const row9 = (c) => cells(c).filter({ hasText: "user#9" }).first();
  assert.equal(await row9("c1").getAttribute("data-state"), "pending");
  assert.equal(await row9("c2").getAttribute("data-state"), "stale");
  assert.doesNotMatch((await typed("lookup users user#9 app-profile=to-c2")).stdout, /Grace/, "a stale read at c2");
  assert.match((await typed("lookup users user#9 app-profile=to-c1")).stdout, /"Grace"/);
  await typed("fault code=UNAUTHENTICATED count=1");
  const refused = await typed("set users user#9 cf:name=X app-profile=to-c1");
  assert.equal(refused.failed, true);
  assert.match(refused.stderr, /rpc error: code = Unauthenticated desc = /);
  await typed("fault code=CANCELLED count=1");
  assert.match((await typed("read users app-profile=to-c1")).stderr, /code = Canceled/);
  // A latency at c2 is waited out on the playground's clock: by the time c2 answers, the
  // write has arrived there.
  await typed("fault latency=2s rpc=ReadRows cluster=c2 count=1");
  const late = await typed("lookup users user#9 app-profile=to-c2");
  assert.match(late.stderr, /injected latency: answered 2000ms later by c2/);
  assert.match(late.stdout, /"Grace"/);
  assert.equal(await row9("c2").getAttribute("data-state"), "everywhere");
  assert.match((await typed("down c3")).stdout, /cluster c3: unavailable/);
  assert.equal(await page.getByTestId("repl-cluster-c3").getAttribute("class"), "repl-cluster down");
  await typed("up c3");
  await typed("clear-faults");
});

test("a fault typed at the console acts on the lesson's buttons: a code refuses, a latency is shown", async () => {
  await typed("fault code=UNAVAILABLE rpc=MutateRow count=1");
  await write("to-c1", "user#3", "Alan");
  let o = await outcome();
  assert.equal(o.code, "UNAVAILABLE");
  assert.match(o.text, /injected fault: UNAVAILABLE on MutateRow at cluster c1/);
  await write("to-c1", "user#3", "Alan");
  assert.equal((await outcome()).code, "OK", "the count is spent");
  await typed("fault latency=2s rpc=ReadRows cluster=c2 count=1");
  await repl().getByTestId("repl-profile").selectOption("to-c2");
  await act("repl-read");
  o = await outcome();
  assert.equal(o.code, "OK");
  // c2 answered two seconds of the clock later, by when the write had arrived.
  assert.match(o.text, /c2 answered: cf:name=Alan/);
  assert.match(await repl().getByTestId("repl-outcome-waited").textContent(), /injected latency: answered 2000ms later by c2/);
});

const mainConsole = () => page.getByTestId("console");

/** Types `line` into the Console tab and returns its entry's failed flag, stdout and stderr. */
async function mainTyped(line) {
  await page.getByTestId("lab-tab-console").click();
  const before = await mainConsole().getByTestId("console-entry").count();
  const input = mainConsole().getByTestId("console-input");
  await input.fill(line);
  await input.press("Enter");
  const entry = mainConsole().getByTestId("console-entry").nth(before);
  await entry.waitFor();
  await settled();
  const text = async (id) => (await entry.getByTestId(id).count()) ? await entry.getByTestId(id).textContent() : "";
  return { failed: (await entry.getAttribute("class")).includes("failed"), stdout: await text("console-stdout"), stderr: await text("console-stderr") };
}

test("the Console tab runs -instance lesson lines on the lesson's instance, others on the database", async () => {
  const w = await mainTyped("-instance lesson -app-profile to-c1 set users user#4 cf:name=Edsger");
  assert.equal(w.failed, false, w.stderr);
  assert.doesNotMatch((await mainTyped("cbt -instance lesson lookup users user#4 app-profile=to-c2")).stdout, /Edsger/, "stale at c2");
  assert.match((await mainTyped("-instance lesson status")).stdout, /writes in flight: [1-9]/);
  assert.match((await mainTyped("listinstances")).stdout, /lesson/);
  assert.match((await mainTyped("-instance nosuch ls")).stderr, /NOT_FOUND/);
  assert.match((await mainTyped("status")).stderr, /-instance lesson status/);
  await page.getByTestId("lab-tab-replication").click();
  const row4 = (c) => cells(c).filter({ hasText: "user#4" }).first();
  assert.equal(await row4("c1").getAttribute("data-state"), "pending");
  assert.equal(await row4("c2").getAttribute("data-state"), "stale");
});

test("axe-core finds no serious violation in the lesson", async () => {
  await injectAxe(page);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document.querySelector("[data-testid=lab]"), { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, target: v.nodes[0]?.target }));
  });
  const serious = result.filter((v) => v.impact === "serious" || v.impact === "critical");
  console.log(`# figure: axe-core on the replication lesson: ${result.length} violations, ${serious.length} serious or critical ${JSON.stringify(result)}`);
  assert.deepEqual(serious, []);
});

test("Key Visualizer: time axis, legend, metric families, diagnostics, drill-down, hot tablets", async () => {
  await page.getByTestId("lab-tab-scenarios").click();
  await page.getByTestId("scenario-hotspots").click();
  await page.locator("[data-testid=scenario-hotspots].active").waitFor();
  await settled();
  await page.getByTestId("lab-tab-heatmap").click();
  const view = page.getByTestId("heatmaps-view");
  const first = view.getByTestId("heatmap").first();
  await first.waitFor();
  // Readable UTC times under the cells, not epoch seconds; a legend beside.
  const times = await first.getByTestId("heat-time-axis").locator("text").allTextContents();
  assert.ok(times.length >= 2 && times.every((t) => /^\d\d:\d\d:\d\d$/.test(t)), times.join(" "));
  assert.match(await first.getByTestId("heat-legend").textContent(), /rows written in one second/);
  // Every metric family draws from the statistics.
  const totals = {};
  for (const m of ["ops", "writes", "reads", "write-bytes", "read-bytes", "cpu"]) {
    await view.getByTestId(`metric-${m}`).click();
    await settled();
    await view.locator(`[data-testid=metric-${m}][aria-pressed=true]`).waitFor();
    totals[m] = Number(await first.getAttribute("data-total"));
  }
  assert.ok(totals.ops >= totals.writes && totals.writes > 0, JSON.stringify(totals));
  assert.ok(totals["write-bytes"] > totals.writes && totals.cpu > 0, JSON.stringify(totals));
  // The sequential design's hot band is a documented diagnostic.
  const seq = view.locator(".card", { has: page.locator("[data-table=hot_sequential]") });
  const diags = await seq.getByTestId("heat-diagnostic").allTextContents();
  assert.ok(diags.some((d) => /High write pressure/.test(d)), diags.join("\n"));
  // ListHotTablets' answer: the busiest tablets, with their share.
  const hot = await view.getByTestId("hot-tablet").allTextContents();
  assert.ok(hot.length >= 1 && hot.every((t) => /\d+\.\d %$/.test(t)), hot.join("\n"));
  // Drill into one key range of the first map, and back.
  await view.getByTestId("metric-writes").click();
  await settled();
  const allRows = Number(await first.getAttribute("data-total"));
  await view.getByTestId("heat-drill").first().selectOption("1");
  await settled();
  await view.getByTestId("heat-zoom").waitFor();
  const zoomed = Number(await view.getByTestId("heatmap").first().getAttribute("data-total"));
  assert.ok(zoomed > 0 && zoomed < allRows, `zoomed ${zoomed} of ${allRows}`);
  await fs.promises.mkdir(SHOTS, { recursive: true });
  await view.screenshot({ path: path.join(SHOTS, "replication-keyvis.png") });
  await view.getByTestId("heat-unzoom").click();
  await settled();
  assert.equal(Number(await view.getByTestId("heatmap").first().getAttribute("data-total")), allRows);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document.querySelector("[data-testid=lab]"), { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, target: v.nodes[0]?.target }));
  });
  console.log(`# figure: axe-core on the Key Visualizer: ${result.length} violations ${JSON.stringify(result)}`);
  assert.deepEqual(result.filter((v) => v.impact === "serious" || v.impact === "critical"), []);
});
