// The playground in a real browser: Debian's Chromium driven by playwright-core, against the
// release build in web/dist/ (scripts/playground.sh --build-only), served from 127.0.0.1 on a
// free port. The test creates a table and writes cells through the UI forms, and checks the
// grid shows exactly what the engine stored. Any console error or page error fails it. It
// saves a screenshot to target/playground.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST = path.join(ROOT, "web", "dist");
const SCREENSHOT = path.join(ROOT, "target", "playground.png");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };

let server;
let browser;
let page;
let baseUrl;
const problems = [];

/** Serves web/dist read-only; anything outside it or missing is a 404. */
function serveDist() {
  return http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "") || "index.html";
    const file = path.resolve(DIST, rel);
    if (!file.startsWith(DIST + path.sep) || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
}

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, "playground_bg.wasm")), "build first: scripts/playground.sh --build-only");
  server = serveDist();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("console", (msg) => { if (msg.type() === "error") problems.push(`console error: ${msg.text()}`); });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()}`));
  await page.goto(baseUrl);
  await page.getByTestId("app").waitFor();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** The grid's data rows as `{key, cells: {column: {value, timestamp, versions}}}`. */
async function gridRows() {
  return page.getByTestId("row").evaluateAll((rows) => rows.map((row) => ({
    key: row.querySelector("[data-testid=row-key-cell]").textContent,
    cells: Object.fromEntries([...row.querySelectorAll("[data-testid=cell]")].map((c) => [c.dataset.column, {
      value: c.querySelector("[data-testid=cell-value]").textContent,
      timestamp: Number(c.querySelector("[data-testid=cell-timestamp]").textContent),
      versions: c.querySelector("[data-testid=cell-versions]").textContent,
    }])),
  })));
}

async function clockMicros() {
  return Number(await page.getByTestId("clock-micros").textContent());
}

async function writeCell(rowKey, family, qualifier, value) {
  const form = page.getByTestId("write-form");
  await form.getByTestId("row-key").fill(rowKey);
  await form.getByTestId("family").selectOption(family);
  await form.getByTestId("qualifier").fill(qualifier);
  await form.getByTestId("value").fill(value);
  await form.getByTestId("write").click();
}

test("create a table, write a cell, rewrite it: the grid shows the newest value and two versions", async () => {
  const form = page.getByTestId("create-table-form");
  await form.getByTestId("table-id").fill("people");
  await form.getByTestId("families").fill("cf, meta");
  await form.getByTestId("create-table").click();
  await page.getByTestId("table-tab").filter({ hasText: "people" }).waitFor();
  assert.equal(await page.getByTestId("no-rows").count(), 1, "a new table has no rows");

  const t1 = await clockMicros();
  await writeCell("user#1", "cf", "name", "Ada");
  await page.getByTestId("cell").first().waitFor();
  assert.deepEqual(await gridRows(), [
    { key: "user#1", cells: { "cf:name": { value: "Ada", timestamp: t1, versions: "1 version" } } },
  ]);
  assert.equal(await page.getByTestId("error").count(), 0);

  const t2 = await clockMicros();
  assert.ok(t2 > t1, "a write moves the clock, so the next write is a new version");
  await writeCell("user#1", "cf", "name", "Ada Lovelace");
  await page.getByText("2 versions").waitFor();
  assert.deepEqual(await gridRows(), [
    { key: "user#1", cells: { "cf:name": { value: "Ada Lovelace", timestamp: t2, versions: "2 versions" } } },
  ]);
});

test("engine errors show inline and leave the page working", async () => {
  const before = await gridRows();
  await writeCell("", "cf", "name", "no key");
  await page.getByTestId("error").waitFor();
  assert.equal(await page.getByTestId("error-code").textContent(), "INVALID_ARGUMENT");
  assert.match(await page.getByTestId("error-message").textContent(), /row_key/);
  assert.deepEqual(await gridRows(), before, "a rejected write changes nothing");

  const form = page.getByTestId("create-table-form");
  await form.getByTestId("table-id").fill("people");
  await form.getByTestId("create-table").click();
  await page.getByTestId("error-code").filter({ hasText: "ALREADY_EXISTS" }).waitFor();

  // The app still works after errors: a write to another family lands in its own column.
  await writeCell("user#2", "meta", "signup", "2024");
  await page.locator("[data-column='meta:signup']").waitFor();
  assert.equal(await page.getByTestId("error").count(), 0, "a successful action clears the error");
  const rows = await gridRows();
  assert.deepEqual(rows.map((r) => r.key), ["user#1", "user#2"]);
  assert.equal(rows[1].cells["meta:signup"].value, "2024");
});

test("screenshot, and no console or page errors", async () => {
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  assert.deepEqual(problems, []);
});
