// Lessons that hold, in a real browser (Debian's Chromium, playwright-core, the release build
// in web/dist/): the bus lesson's own lookup finds its bus, "+5 s of load" writes in every
// lesson, a single tablet shows no hotspot score, the tall-vs-wide lesson shows row sizes
// against Bigtable's 100 MB advice, the console has cbt's help and server time that advances,
// a user's own table gets the lab's small tablet thresholds and its true row count, and admin
// operations are shown as code. Screenshots go to target/lessons-*.png. Any console or page
// error fails it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { setup, SHOTS } from "./support.mjs";

let pw;
let page;

before(async () => {
  pw = await setup({ ready: "lab" });
  page = pw.page;
});

after(async () => {
  await pw?.close();
  assert.deepEqual(pw?.problems ?? [], []);
});

async function settled() {
  await page.locator("[data-testid=app][data-busy=false]").waitFor();
}

async function shot(name, locator = page.getByTestId("lab")) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await locator.screenshot({ path: path.join(SHOTS, `lessons-${name}.png`) });
}

async function lesson(slug) {
  await page.getByTestId("lab-tab-scenarios").click();
  await page.getByTestId(`scenario-${slug}`).click();
  await page.locator(`[data-testid=scenario-${slug}].active`).waitFor();
  await settled();
}

/** Runs a console line; returns its entry. */
async function run(line) {
  await page.getByTestId("lab-tab-console").click();
  const input = page.getByTestId("console-input");
  const n = await page.getByTestId("console-entry").count();
  await input.fill(line);
  await input.press("Enter");
  await page.getByTestId("console-entry").nth(n).waitFor();
  return page.getByTestId("console-entry").nth(n);
}

const stdout = async (entry) => (await entry.getByTestId("console-stdout").count())
  ? entry.getByTestId("console-stdout").textContent() : "";

test("bus lesson: its own lookup finds STC#22#173, load moves the buses, one tablet has no hotspot score", async () => {
  await lesson("bus");
  const lane = page.locator("[data-testid=lane][data-table=vehicles]");
  await lane.waitFor();
  assert.equal(await lane.getAttribute("data-hotspot"), "", "no score for one tablet");
  const score = lane.getByTestId("hotspot-score");
  assert.equal(await score.getAttribute("data-single"), "true");
  assert.doesNotMatch(await score.getAttribute("class"), /\bbad\b/);
  await shot("bus");
  // The lesson's try-button, as a learner clicks it.
  await page.getByRole("button", { name: "lookup vehicles STC#22#173" }).click();
  await settled();
  await page.getByTestId("lab-tab-console").click();
  const before = await stdout(page.getByTestId("console-entry").last());
  assert.match(before, /^-+\nSTC#22#173\n/, before);
  assert.equal((before.match(/ {2}loc:lat/g) ?? []).length, 3, before);
  await page.getByTestId("lab-tab-scenarios").click();
  const simulated = async () => page.getByTestId("load").locator("h2 .muted").textContent();
  const was = await simulated();
  await page.getByTestId("load-5").click();
  await page.waitForFunction((w) => document.querySelector("[data-testid=load] h2 .muted").textContent !== w, was);
  await settled();
  assert.notEqual(await simulated(), was);
  const after = await stdout(await run("lookup vehicles STC#22#173 cells-per-column=1"));
  const newest = (s) => s.match(/@ (\S+)/)[1];
  assert.ok(newest(after) > newest(before), `a newer position after load:\n${before}\n${after}`);
});

test("comments lesson: +5 s of load adds comments", async () => {
  await lesson("comments");
  const rows = async () => Number((await page.locator("[data-testid=lane][data-table=comments] .tablet-keys .muted").textContent()).match(/(\d+) rows/)[1]);
  const was = await rows();
  await page.getByTestId("load-5").click();
  await page.waitForFunction(() => /\b150 rows/.test(document.querySelector("[data-testid=lane][data-table=comments] .tablet-keys .muted").textContent));
  assert.equal(await rows(), was + 20);
});

test("tall-vs-wide lesson: row sizes against Bigtable's 100 MB advice", async () => {
  await lesson("tall-wide");
  const sizes = async (table) => {
    const el = page.locator(`[data-testid=lane][data-table=${table}] [data-testid=row-sizes]`);
    await el.waitFor();
    return { cells: Number(await el.getAttribute("data-largest-cells")), bytes: Number(await el.getAttribute("data-largest-bytes")), text: await el.textContent() };
  };
  const tall = await sizes("tall");
  const wide = await sizes("wide");
  assert.equal(tall.cells, 1, tall.text);
  assert.ok(wide.cells >= 50 && wide.bytes > 20 * tall.bytes, JSON.stringify({ tall, wide }));
  assert.match(wide.text, /largest row .* cells; mean .* per row/);
  assert.match(wide.text, /of the 100 MB Bigtable advises per row, .* of its 256 MB limit/);
  assert.match(wide.text, /past 100 MB in \d+ days/);
  await shot("tall-wide", page.locator("[data-testid=lane][data-table=wide]"));
});

test("console: help as cbt prints it, and three sets keep three versions", async () => {
  const help = await stdout(await run("help"));
  for (const c of ["count", "createtable", "lookup", "read", "set", "setgcpolicy", "help"]) {
    assert.match(help, new RegExp(`^cbt ${c}\\t`, "m"), help);
  }
  assert.match(await stdout(await run("help lookup")), /^cbt lookup <table-id> <row-key>/);
  await run("createtable clocked families=cf");
  for (const v of ["a", "b", "c"]) await run(`set clocked r cf:q=${v}`);
  const out = await stdout(await run("lookup clocked r"));
  assert.equal((out.match(/ {2}cf:q/g) ?? []).length, 3, out);
  await shot("console");
});

test("a user's own table: the lab's thresholds split it and the map counts its rows; admin code is shown", async () => {
  // A fresh visit (no lesson running): the lab shows the selected table.
  page = await pw.newPage();
  await page.getByTestId("lab").waitFor();
  await page.getByTestId("view-data").click();
  const form = page.getByTestId("create-table-form");
  await form.getByTestId("table-id").fill("mine");
  await form.getByTestId("families").fill("cf");
  await form.getByTestId("max-versions").fill("2");
  await form.getByTestId("create-table").click();
  await page.getByTestId("table-tab").filter({ hasText: "mine" }).click();
  await settled();
  // Creating a table is shown as code in every language.
  await page.getByTestId("code-tab").filter({ hasText: "cbt" }).click();
  assert.equal(await page.getByTestId("code-text").textContent(),
    "cbt -project my-project -instance my-instance createtable mine families=cf:maxversions=2\n");
  await page.getByTestId("code-tab").filter({ hasText: "Java" }).click();
  assert.match(await page.getByTestId("code-text").textContent(), /admin\.createTable\(CreateTableRequest\.of\("mine"\)/);
  await page.getByTestId("load-1k").click();
  await settled();
  await page.getByTestId("lab-tab-tablets").click();
  const map = page.locator("[data-testid=tablet-map][data-table=mine]");
  await map.waitFor();
  assert.ok(Number(await map.getAttribute("data-tablets")) > 1, "the lab's 48 KiB split threshold splits 1,000 rows");
  assert.match(await map.locator(".tablet-keys .muted").textContent(), /· 1000 rows$/);
  const perTablet = await map.locator(".tablet-label").allTextContents();
  assert.equal(perTablet.reduce((n, t) => n + Number(t.match(/\d+/)[0]), 0), 1000, perTablet.join(" "));
  await shot("user-table", page.getByTestId("lab"));
});
