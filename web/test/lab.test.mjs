// The lab in a real browser: Debian's Chromium driven by playwright-core against the release
// build in web/dist/ (scripts/playground.sh --build-only), one browser launch. It runs the
// hotspot lesson and checks, from data- attributes (not pixels), that the sequential-key
// table split and shows a hot band and a hotspot score near 100 % while the salted and
// field-promoted tables spread their writes; that the console answers cbt commands with
// cbt's output, history and completion; that the key builder warns; and it saves a
// screenshot of each lab view under target/lab-*.png. Any console or page error fails it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { setup, SHOTS } from "./support.mjs";

let pw;
let page;

before(async () => {
  pw = await setup({ ready: "lab", requests: true });
  page = pw.page;
});

after(async () => {
  await pw?.close();
});

async function shot(name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.getByTestId("lab").screenshot({ path: path.join(SHOTS, `lab-${name}.png`) });
}

/** Waits until the engine (in its worker) has answered every action the page sent. */
async function settled(p = page) {
  await p.locator("[data-testid=app][data-busy=false]").waitFor();
}

/** Every lane as {table, hotspot, tablets, splits, hotRows, heatTotal}. */
async function lanes() {
  await settled();
  return page.getByTestId("lane").evaluateAll((els) => els.map((el) => ({
    table: el.dataset.table,
    hotspot: Number(el.dataset.hotspot),
    tablets: Number(el.querySelector("[data-testid=tablet-map]").dataset.tablets),
    splits: Number(el.querySelector("[data-testid=tablet-map]").dataset.splits),
    hotRows: Number(el.querySelector("[data-testid=heatmap]").dataset.hotRows),
    heatRows: Number(el.querySelector("[data-testid=heatmap]").dataset.rows),
    heatTotal: Number(el.querySelector("[data-testid=heatmap]").dataset.total),
  })));
}

test("hotspot lesson: sequential keys split into a hot last tablet, salted and promoted keys spread", async () => {
  await page.getByTestId("lab-tab-scenarios").click();
  await page.getByTestId("scenario-hotspots").click();
  await page.getByTestId("lesson").waitFor();
  await page.locator("[data-testid=lane][data-table=hot_promoted]").waitFor();
  const [seq, salted, promoted] = await lanes();
  assert.deepEqual([seq.table, salted.table, promoted.table], ["hot_sequential", "hot_salted", "hot_promoted"]);
  for (const lane of [seq, salted, promoted]) {
    assert.ok(lane.tablets >= 3 && lane.splits >= 2, `${lane.table} split: ${JSON.stringify(lane)}`);
    assert.equal(lane.heatTotal, 3000, `${lane.table}: every write is in the heatmap`);
  }
  assert.ok(seq.hotspot >= 800, `sequential keys: one tablet takes the writes (${seq.hotspot} ‰)`);
  assert.ok(salted.hotspot <= 400, `salted keys spread writes (${salted.hotspot} ‰)`);
  assert.ok(promoted.hotspot <= 400, `promoted keys spread writes (${promoted.hotspot} ‰)`);
  assert.ok(seq.hotRows >= 1, "the sequential heatmap marks its hot band");
  // The hot band: each second of sequential writes falls in one or two key ranges (a
  // diagonal), while the field-promoted table writes many key ranges every second.
  const widest = (table) => page.locator(`[data-testid=heatmap][data-table=${table}]`).getAttribute("data-widest").then(Number);
  assert.ok(seq.heatRows >= 8, `sequential heatmap has ${seq.heatRows} key rows`);
  assert.ok(await widest("hot_sequential") <= 2, "sequential writes are a narrow band each second");
  assert.ok(await widest("hot_promoted") >= 12, "promoted writes cover the key space each second");
  assert.equal(await page.locator("[data-testid=lane][data-table=hot_promoted] .hot-outline").count(), 0, "no hotspot when spread");

  // More load moves the clock and grows the tables; the hover names range, ops and tablet.
  await page.getByTestId("load-5").click();
  await page.waitForFunction(() => Number(document.querySelector("[data-testid=lane]").querySelector("[data-testid=heatmap]").dataset.total) === 4000);
  // The last cell (bottom right): cells are squares of 8 px in the lanes.
  const svg = page.locator("[data-testid=lane][data-table=hot_sequential] [data-testid=heatmap] svg");
  const box = await svg.boundingBox();
  await svg.hover({ position: { x: box.width - 4, y: box.height - 4 } });
  assert.match(await page.locator("[data-testid=lane][data-table=hot_sequential] [data-testid=heat-hover]").textContent(), /keys .* … .*\n.*writes.*\ntablet \d+/);
  await shot("scenarios");
  // Figures, not assertions: the engine runs in its Web Worker, and the page applies the
  // burst's updates (5 simulated seconds of writes to three tables) at most once per frame
  // after the first, so a keystroke that arrives during it waits for at most one redraw.
  // Measured: from the click to the first frame after it, and a key press's wait while the
  // burst is under way.
  const figures = await page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const input = document.querySelector("[data-testid=load-rate]");
    const total = () => Number(document.querySelector("[data-testid=heatmap]").dataset.total);
    const before = total();
    const t = performance.now();
    document.querySelector("[data-testid=load-5]").click();
    await frame();
    const firstFrame = performance.now() - t;
    const waits = [];
    while (total() < before + 1000 && waits.length < 500) {
      const sent = performance.now();
      await new Promise((r) => {
        input.addEventListener("keydown", () => r(), { once: true });
        setTimeout(() => input.dispatchEvent(new KeyboardEvent("keydown", { key: "0" })), 0);
      });
      waits.push(performance.now() - sent);
      await frame();
    }
    return { firstFrame, worst: Math.max(...waits), keys: waits.length };
  });
  console.log(`# figure: input latency while the load generator runs a 5-tick burst: first frame after the click ${figures.firstFrame.toFixed(0)} ms, worst wait of a key press queued during it ${figures.worst.toFixed(0)} ms (${figures.keys} presses)`);
});

test("tablets tab: thresholds are shown and adjustable, the event log records splits", async () => {
  await page.getByTestId("lab-tab-tablets").click();
  await page.getByTestId("thresholds").waitFor();
  assert.ok(await page.locator("[data-testid=event-log] li[data-kind=split]").count() >= 2);
  const before = await page.locator("[data-testid=tablet-map][data-table=hot_salted]").getAttribute("data-tablets");
  await page.getByTestId("th-split").fill("16384");
  await page.getByTestId("th-merge").fill("4096");
  await page.getByTestId("th-apply").click();
  await page.getByText("split 16384 B").waitFor();
  await page.getByTestId("lab-tab-scenarios").click();
  await page.getByTestId("load-5").click();
  await page.getByTestId("lab-tab-tablets").click();
  await page.waitForFunction((n) => Number(document.querySelector("[data-testid=tablet-map][data-table=hot_salted]").dataset.tablets) > n, Number(before));
  await shot("tablets");
  // Cold neighbours merge: with a merge threshold above every tablet's size, compacting
  // merges the sequential table's tablets that the hotspot left behind.
  const seqBefore = Number(await page.locator("[data-testid=tablet-map][data-table=hot_sequential]").getAttribute("data-tablets"));
  await page.getByTestId("th-split").fill("67108864");
  await page.getByTestId("th-merge").fill("33554432");
  await page.getByTestId("th-apply").click();
  await page.getByText("merge 33554432 B").waitFor();
  await page.getByTestId("compact").click();
  await page.locator("[data-testid=event-log] li[data-kind=merge]").first().waitFor();
  const seqAfter = Number(await page.locator("[data-testid=tablet-map][data-table=hot_sequential]").getAttribute("data-tablets"));
  assert.ok(seqAfter < seqBefore, `sequential tablets ${seqBefore} -> ${seqAfter} after compaction`);
  await shot("tablets-merged");
  // Back to the lab's small thresholds for the tests that follow.
  await page.getByTestId("th-split").fill("16384");
  await page.getByTestId("th-merge").fill("4096");
  await page.getByTestId("th-apply").click();
  await page.getByText("merge 4096 B").waitFor();
});

test("Key Visualizer tab: metrics switch and hot rows are marked", async () => {
  await page.getByTestId("lab-tab-heatmap").click();
  await page.getByTestId("heatmaps-view").waitFor();
  assert.ok(Number(await page.locator("[data-testid=heatmap][data-table=hot_sequential]").getAttribute("data-hot-rows")) >= 1);
  await page.getByTestId("metric-bytes").click();
  await page.waitForFunction(() => Number(document.querySelector("[data-testid=heatmap][data-table=hot_sequential]").dataset.total) > 100000);
  await page.getByTestId("metric-writes").click();
  await shot("heatmap");
});

test("console: cbt commands print what cbt prints, with history and completion", async () => {
  await page.getByTestId("lab-tab-console").click();
  const input = page.getByTestId("console-input");
  const run = async (line) => {
    const n = await page.getByTestId("console-entry").count();
    await input.fill(line);
    await input.press("Enter");
    await page.getByTestId("console-entry").nth(n).waitFor();
    return page.getByTestId("console-entry").nth(n);
  };
  await run("createtable people families=info:maxversions=2");
  await run("set people p1 info:name=Ada@1000 info:city=London@1000");
  let out = await run("read people");
  assert.equal(await out.getByTestId("console-stdout").textContent(),
    "----------------------------------------\np1\n" +
    "  info:city                                @ 1970/01/01-00:00:00.001000\n    \"London\"\n" +
    "  info:name                                @ 1970/01/01-00:00:00.001000\n    \"Ada\"\n\n");
  out = await run("ls people");
  assert.equal(await out.getByTestId("console-stdout").textContent(),
    "Family Name\tGC Policy\t\tValue Type\n-----------\t---------\t\t----------\ninfo\t\tversions() > 2\t\t{}\n");
  out = await run("count hot_sequential");
  assert.match(await out.getByTestId("console-stdout").textContent(), /^\d+\n$/);
  out = await run("read nosuch");
  assert.equal(await out.getByTestId("console-stderr").textContent(),
    "Reading rows: rpc error: code = NotFound desc = table \"nosuch\" not found\n");
  // History: arrow up brings back the last line.
  await input.press("ArrowUp");
  assert.equal(await input.inputValue(), "read nosuch");
  await input.press("ArrowUp");
  assert.equal(await input.inputValue(), "count hot_sequential");
  // Completion: command, table, option.
  await input.fill("loo");
  await input.press("Tab");
  assert.equal(await input.inputValue(), "lookup ");
  await input.type("peo");
  await input.press("Tab");
  assert.equal(await input.inputValue(), "lookup people ");
  await input.fill("");
  out = await run("import people sample.csv column-family=info");
  assert.equal(await out.getByTestId("console-stderr").textContent(),
    "[0] Writing batch:: size: 3, firstRowKey: user#0001, lastRowKey: user#0003\nDone importing 3 rows.\n");
  await shot("console");
});

test("key builder: live preview, warnings, and A/B under the same load", async () => {
  await page.getByTestId("lab-tab-keys").click();
  await page.getByTestId("key-builder").waitFor();
  // Design A is timestamp-first: the builder warns.
  await page.locator("[data-testid=design-warnings] [data-warning=starts-with-timestamp]").waitFor();
  await page.getByTestId("key-probe").fill("STC#22#173");
  await page.locator("[data-testid=probe-warnings] [data-warning=unpadded-number]").waitFor();
  await page.getByTestId("key-probe").fill(`k${"x".repeat(5000)}`);
  await page.locator("[data-testid=probe-warnings] [data-warning=too-long]").waitFor();
  const previewBefore = await page.getByTestId("key-preview").textContent();
  await page.getByTestId("segment-kind").selectOption("salt");
  await page.getByTestId("segment-param").fill("4");
  await page.getByTestId("segment-add").click();
  await page.waitForFunction((b) => document.querySelector("[data-testid=key-preview]").textContent !== b, previewBefore);
  await shot("keys");
  await page.getByTestId("run-ab").click();
  await page.getByTestId("lab-tab-scenarios").click();
  await page.locator("[data-testid=lane][data-table=ab_b]").waitFor();
  const ab = await lanes();
  assert.deepEqual(ab.map((l) => l.table), ["ab_a", "ab_b"]);
  assert.equal(ab[0].heatTotal, ab[1].heatTotal, "both designs get the same load");
  assert.ok(ab[0].hotspot > ab[1].hotspot, `timestamp-first A is hotter than entity-first B: ${JSON.stringify(ab)}`);
});

test("the other lessons load, and the comments pager pages by resume key", async () => {
  for (const slug of ["time-series", "bus", "tall-wide", "comments"]) {
    await page.getByTestId(`scenario-${slug}`).click();
    await page.locator(`[data-testid=scenario-${slug}].active`).waitFor();
    assert.ok(await page.getByTestId("lane").count() >= 1, slug);
  }
  const pager = page.getByTestId("pager");
  await pager.waitFor();
  assert.equal(await pager.locator("li").count(), 20);
  const first = await pager.locator("li code").first().textContent();
  await page.getByTestId("pager-next").click();
  await page.locator("[data-testid=pager][data-page='2']").waitFor();
  assert.notEqual(await pager.locator("li code").first().textContent(), first);
  await page.getByTestId("pager-regex").fill(".*/en/5/.*");
  await page.getByTestId("pager-first").click();
  await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=pager] li code")].every((c) => c.textContent.includes("/en/5/")));
  await shot("comments");
});

test("no console or page errors", () => {
  assert.deepEqual(pw.problems, []);
});
