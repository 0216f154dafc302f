// Garbage collection in the playground, in Debian's Chromium (issue 33, item 1): Background
// mode by default (eligible cells stay readable, badged in the grid and the drawer), a mode
// switch saved with the session, "Collect now", the hint and one-click read with the filter
// mirroring the GC rule, GC-rule edits previewed before they apply, and the time-series
// lesson's count after "+1 h". Against the release build in $PLAYGROUND_DIST or web/dist/
// (scripts/playground.sh --build-only), served by scripts/serve_playground.py.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { setup, axeViolations } from "./support.mjs";

let pw;
let page;

before(async () => {
  pw = await setup();
  page = pw.page;
});

after(async () => {
  await pw?.close();
});

async function settled() {
  await page.locator("[data-testid=app][data-busy=false]").waitFor();
}

/** axe-core's violations of any impact on the page as it stands (none expected). */
async function axe() {
  await settled();
  return axeViolations(page);
}

async function createTable(id, families, keep) {
  await page.getByTestId("view-data").click();
  const form = page.getByTestId("create-table-form");
  await form.getByTestId("table-id").fill(id);
  await form.getByTestId("families").fill(families);
  await form.getByTestId("max-versions").fill(keep);
  await form.getByTestId("create-table").click();
  await page.getByTestId("table-tab").filter({ hasText: id }).waitFor();
  await settled();
}

async function writeCell(row, family, qualifier, value) {
  const form = page.getByTestId("write-form");
  await form.getByTestId("row-key").fill(row);
  await form.getByTestId("family").selectOption(family);
  await form.getByTestId("qualifier").fill(qualifier);
  await form.getByTestId("value").fill(value);
  await form.getByTestId("write").click();
  await settled();
}

const cell = (column) => page.locator(`[data-testid=cell][data-column='${column}']`);

/** The drawer's versions: text, hidden (Immediate), eligible (Background). */
function versions() {
  return page.getByTestId("drawer").getByTestId("version").evaluateAll((els) => els.map((e) => ({
    text: e.querySelector("[data-testid=version-text]").textContent,
    hidden: e.dataset.hidden === "true",
    eligible: e.dataset.eligible === "true",
  })));
}

test("Background by default: eligible cells stay readable and are badged; Collect now removes them", async () => {
  assert.equal(await page.getByTestId("gc-mode").count(), 0, "no table yet, no GC controls");
  await createTable("g", "cf", "1");
  assert.equal(await page.getByTestId("gc-mode").inputValue(), "background");
  assert.match(await page.getByTestId("gc-mode-help").textContent(), /what Bigtable does/);
  for (const v of ["a", "b", "c"]) await writeCell("r", "cf", "q", v);
  // As Bigtable: all three versions are read, two of them eligible for GC.
  await cell("cf:q").getByTestId("cell-versions").filter({ hasText: "3 versions" }).waitFor();
  assert.equal(await cell("cf:q").getByTestId("cell-eligible").textContent(), "2 eligible for GC");
  await cell("cf:q").locator("button").click();
  await page.getByTestId("drawer").waitFor();
  assert.deepEqual(await versions(), [
    { text: "c", hidden: false, eligible: false },
    { text: "b", hidden: false, eligible: true },
    { text: "a", hidden: false, eligible: true },
  ]);
  assert.match(await page.getByTestId("gc-filter-hint").textContent(), /mirrors the GC rule/);
  assert.deepEqual(await axe(), [], "badges, the hint and the GC controls pass axe-core");
  // Every new control is a native button or select, reachable by Tab.
  for (const id of ["gc-mode", "collect-now", "drawer-gc-filter", "gc-filter"]) {
    assert.notEqual(await page.getByTestId(id).getAttribute("tabindex"), "-1", id);
    await page.getByTestId(id).focus();
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), id);
  }
  // Collect now: the eligible versions are gone, and the notice says how many.
  await page.getByTestId("collect-now").click();
  await page.getByTestId("notice").filter({ hasText: "Collected garbage in g: 2 cells removed" }).waitFor();
  await cell("cf:q").getByTestId("cell-versions").filter({ hasText: "1 version" }).waitFor();
  assert.equal(await cell("cf:q").getByTestId("cell-eligible").count(), 0);
  assert.deepEqual(await versions(), [{ text: "c", hidden: false, eligible: false }]);
});

test("the mode switch: Immediate hides and greys at once; the choice is saved with the session", async () => {
  await writeCell("r", "cf", "q", "d");
  await page.locator("[data-testid=drawer] [data-eligible=true]").waitFor();
  await page.getByTestId("gc-mode").selectOption("immediate");
  await settled();
  assert.match(await page.getByTestId("gc-mode-help").textContent(), /hide collectable cells at once/);
  await cell("cf:q").getByTestId("cell-versions").filter({ hasText: "1 version" }).waitFor();
  assert.equal(await cell("cf:q").getByTestId("cell-eligible").count(), 0);
  assert.deepEqual(await versions(), [
    { text: "d", hidden: false, eligible: false },
    { text: "c", hidden: true, eligible: false },
  ]);
  // Saved with the session: a reload comes back in Immediate mode. (An Immediate-mode
  // session keeps what reads return: the hidden version is not kept.)
  await page.reload();
  await page.getByTestId("app").waitFor();
  await page.getByTestId("gc-mode").waitFor();
  assert.equal(await page.getByTestId("gc-mode").inputValue(), "immediate");
  await page.getByTestId("gc-mode").selectOption("background");
  await settled();
  await cell("cf:q").getByTestId("cell-versions").filter({ hasText: "1 version" }).waitFor();
  // Background sessions keep eligible versions: they are still there after a reload.
  await writeCell("r", "cf", "q", "d2");
  await cell("cf:q").getByTestId("cell-eligible").filter({ hasText: "1 eligible for GC" }).waitFor();
  await page.reload();
  await page.getByTestId("app").waitFor();
  await cell("cf:q").getByTestId("cell-eligible").filter({ hasText: "1 eligible for GC" }).waitFor();
  assert.equal(await page.getByTestId("gc-mode").inputValue(), "background");
});

test("the filter mirroring the GC rule: one click reads with it in the Query view", async () => {
  await page.getByTestId("gc-filter").click();
  await page.locator("main.view-query").waitFor();
  await page.getByTestId("q-results").waitFor();
  const request = JSON.parse(await page.getByTestId("q-results").getAttribute("data-request"));
  assert.deepEqual(request.filter, { chain: { filters: [{ familyNameRegexFilter: "cf" }, { cellsPerColumnLimitFilter: 1 }] } });
  // The read returns the newest version only, while the grid still shows the eligible one.
  const cells = await page.getByTestId("q-row").locator(".result-cell").allTextContents();
  assert.equal(cells.length, 1);
  assert.match(cells[0], /^cf:q = d2 @/);
  assert.equal(await page.getByTestId("filter-builder").getByTestId("f-kind").inputValue(), "chain");
  await page.getByTestId("view-data").click();
});

test("GC-rule edits say what they will do before they apply, in both modes", async () => {
  // Background, max versions 1 -> 3: the uncollected version is kept for good.
  const gc = page.getByTestId("gc-cf");
  await gc.getByTestId("gc-cf-versions").fill("3");
  await gc.getByTestId("gc-preview").filter({ hasText: "If applied" }).waitFor();
  assert.deepEqual(await axe(), [], "the preview passes axe-core");
  assert.equal(await gc.getByTestId("gc-preview").textContent(),
    "If applied: Eligible for GC now: 1 cell; after the change: 0 cells. Eligible now but not collected yet, so kept for good by the new rule (they stay readable): 1 cell.");
  await gc.getByTestId("gc-cf-versions").fill("1");
  assert.equal(await gc.getByTestId("gc-preview").count(), 0, "the draft equals the rule: nothing to preview");
  // Immediate: raising the limit cannot bring the hidden version back; tightening hides.
  await page.getByTestId("gc-mode").selectOption("immediate");
  await settled();
  await gc.getByTestId("gc-cf-versions").fill("3");
  await gc.getByTestId("gc-preview").filter({ hasText: "removed for good first" }).waitFor();
  assert.equal(await gc.getByTestId("gc-preview").textContent(),
    "If applied: No readable cell disappears. Hidden by the current rule and removed for good first (a looser rule does not bring them back): 1 cell.");
  await gc.getByTestId("gc-apply").click();
  await gc.getByTestId("gc-current").filter({ hasText: "beyond max versions 3" }).waitFor();
  await cell("cf:q").getByTestId("cell-versions").filter({ hasText: "1 version" }).waitFor();
  await writeCell("r", "cf", "q", "e");
  await writeCell("r", "cf", "q", "f");
  await gc.getByTestId("gc-cf-versions").fill("1");
  await gc.getByTestId("gc-preview").filter({ hasText: "Disappearing" }).waitFor();
  assert.equal(await gc.getByTestId("gc-preview").textContent(), "If applied: Disappearing from reads at once: 2 cells.");
  await page.getByTestId("gc-mode").selectOption("background");
  await settled();
});

test("the time-series lesson holds in Background mode: +1 h leaves the cells readable until Collect now", async () => {
  await page.getByTestId("lab-tab-scenarios").click();
  await page.getByTestId("scenario-time-series").click();
  await page.locator("[data-testid=scenario-time-series].active").waitFor();
  const lesson = await page.getByTestId("lab").textContent();
  assert.doesNotMatch(lesson, /disappear from reads at once/);
  assert.match(lesson, /stay readable/);
  await settled();
  await page.getByTestId("lab-tab-console").click();
  const input = page.getByTestId("console-input");
  const count = async () => {
    const n = await page.getByTestId("console-entry").count();
    await input.fill("count sensor_ts");
    await input.press("Enter");
    const entry = page.getByTestId("console-entry").nth(n);
    await entry.waitFor();
    return Number((await entry.getByTestId("console-stdout").textContent()).trim().match(/(\d+)$/)[1]);
  };
  const before = await count();
  assert.ok(before > 0, `the lesson wrote rows: ${before}`);
  await page.getByRole("button", { name: "+1 h" }).click();
  await settled();
  assert.equal(await count(), before, "eligible but not collected: still read");
  await page.getByTestId("table-tab").filter({ hasText: "sensor_ts" }).click();
  await settled();
  await page.getByTestId("collect-now").click();
  await page.getByTestId("notice").filter({ hasText: "Collected garbage in sensor_ts" }).waitFor();
  assert.equal(await count(), 0, "collected: gone");
  assert.deepEqual(pw.problems, []);
});
