// Load once, cache right, measured in a real browser (Debian's Chromium, playwright-core) against
// the release build in web/dist/ served by the README's server (scripts/serve_playground.py):
// a first visit downloads the wasm once (the page compiles it; the engine's Web Worker gets the
// compiled WebAssembly.Module from the page instead of fetching and compiling it again), and a
// reload downloads no byte of it again (the server's validators answer 304). Bytes are what
// the browser received over the network: Playwright's request sizes (headers and encoded body)
// for every response, the page's and the worker's. The figures go to the test log.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { setup, DIST } from "./support.mjs";

let pw;
let browser;
let baseUrl;

before(async () => {
  // No page yet: each test opens its own context, so its cache starts empty.
  pw = await setup({ open: false });
  ({ browser, url: baseUrl } = pw);
});

after(async () => {
  await pw?.close();
});

/**
 * Records every response the page and its workers receive while `step` runs, once the app is
 * up and the engine has answered: `{file, status, bytes, body}` (bytes: headers and encoded
 * body as received; body: the encoded body alone, 0 for a 304 or a cache hit).
 */
async function record(p, step) {
  const seen = [];
  const pending = [];
  const onFinished = (req) => pending.push((async () => {
    const [sizes, res] = await Promise.all([req.sizes(), req.response()]);
    seen.push({
      file: new URL(req.url()).pathname.replace(/^\//, "") || "index.html",
      status: res?.status() ?? 0,
      bytes: sizes.responseHeadersSize + sizes.responseBodySize,
      body: sizes.responseBodySize,
    });
  })());
  p.on("requestfinished", onFinished);
  await step();
  await p.getByTestId("app").waitFor({ timeout: 60_000 });
  await p.locator("[data-testid=app][data-busy=false]").waitFor();
  // The engine answered, so the worker has loaded whatever it loads.
  p.off("requestfinished", onFinished);
  await Promise.all(pending);
  return seen;
}

/** A GET with the given headers: status, headers and the body's length as received. */
function get(url, headers) {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let length = 0;
      res.on("data", (c) => { length += c.length; });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, length }));
    }).on("error", reject);
  });
}

const sum = (list, key) => list.reduce((n, r) => n + r[key], 0);
const wasm = (list) => list.filter((r) => r.file.endsWith(".wasm"));

test("one download of the wasm per visit, none on a reload", async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const p = await ctx.newPage();
    const problems = [];
    p.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    p.on("console", (msg) => { if (msg.type() === "error") problems.push(`console error: ${msg.text()}`); });
    const visit = await record(p, () => p.goto(baseUrl));
    const reload = await record(p, () => p.reload());
    const gz = fs.statSync(path.join(DIST, "playground_bg.wasm.gz")).size;
    const line = (name, list) => `# figure: ${name}: ${list.length} responses, ${sum(list, "bytes")} bytes `
      + `(wasm: ${wasm(list).length} responses, ${sum(wasm(list), "bytes")} bytes) `
      + JSON.stringify(list.map((r) => `${r.file} ${r.status} ${r.bytes}`));
    console.log(line("first visit", visit));
    console.log(line("reload", reload));
    assert.deepEqual(problems, []);

    const downloads = wasm(visit).filter((r) => r.body > 0);
    assert.equal(downloads.length, 1, `the wasm is downloaded once per visit: ${JSON.stringify(wasm(visit))}`);
    // And asked for once: the worker does not even revalidate it (it would compile it again).
    assert.equal(wasm(visit).length, 1, `the worker takes the page's module: ${JSON.stringify(wasm(visit))}`);
    assert.ok(Math.abs(downloads[0].body - gz) < 64, `and gzipped (${downloads[0].body} bytes received, ${gz} on disk)`);
    assert.equal(sum(wasm(reload), "body"), 0, `a reload downloads none of it: ${JSON.stringify(wasm(reload))}`);
    // Nothing else is sent again either: every file is answered 304 or from the cache.
    assert.deepEqual(reload.filter((r) => r.body > 0 && r.status !== 304).map((r) => r.file), [],
      "a reload downloads no file again");
  } finally {
    await ctx.close();
  }
});

test("the server's validators: ETag and Last-Modified, 304 with no body while they match", async () => {
  const url = `${baseUrl}playground_bg.wasm`;
  const gz = { "accept-encoding": "gzip" };
  const first = await get(url, gz);
  assert.equal(first.status, 200);
  assert.equal(first.headers["cache-control"], "no-cache", "kept, but asked about on each use");
  const etag = first.headers.etag;
  assert.match(etag ?? "", /^"[0-9a-f]{32}"$/);
  assert.ok(first.headers["last-modified"]);
  const plain = await get(url, {});
  assert.notEqual(plain.headers.etag, etag, "the gzip and the plain variant have their own validators");

  const same = await get(url, { ...gz, "if-none-match": etag });
  assert.deepEqual([same.status, same.length, same.headers.etag], [304, 0, etag]);
  assert.equal((await get(url, { ...gz, "if-none-match": `"x", W/${etag}` })).status, 304, "a list, weak compared");
  assert.equal((await get(url, { ...gz, "if-none-match": plain.headers.etag })).status, 200, "another variant's tag");
  assert.equal((await get(url, { ...gz, "if-modified-since": first.headers["last-modified"] })).status, 304);
  assert.equal((await get(url, { ...gz, "if-modified-since": "Thu, 01 Jan 1970 00:00:00 GMT" })).status, 200);
  assert.equal((await get(url, { ...gz, "if-modified-since": "not a date" })).status, 200);
  // If-None-Match wins over If-Modified-Since (RFC 9110 section 13.2.2).
  assert.equal((await get(url, { ...gz, "if-none-match": '"x"', "if-modified-since": first.headers["last-modified"] })).status, 200);
});
