// The Playwright setup every browser test of the playground shares: the release build in
// web/dist/ (or $PLAYGROUND_DIST, e.g. another branch's build, to see a test fail there) served
// by scripts/serve_playground.py on a free port, Debian's Chromium through playwright-core
// (never a downloaded browser), pages that record every console error and page error, and
// axe-core injected on demand. One server and one browser per test file; a file that needs
// another width opens another context in the same browser.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
// SPARSETABLE_WEB_DIST is the older name some runs still set.
export const DIST = process.env.PLAYGROUND_DIST || process.env.SPARSETABLE_WEB_DIST || path.join(ROOT, "web", "dist");
export const AXE = path.join(ROOT, "web", "node_modules", "axe-core", "axe.min.js");
/** Where screenshots go (target/ is git-ignored). */
export const SHOTS = path.join(ROOT, "target");
/** The width and height most tests run at. */
export const VIEWPORT = { width: 1280, height: 900 };
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

/** Starts scripts/serve_playground.py on a free port: `{ url, process }`. */
export function serve(dir = DIST) {
  return new Promise((resolve, reject) => {
    const server = spawn("python3", [path.join(ROOT, "scripts", "serve_playground.py"), "--dir", dir, "--port", "0"],
      { stdio: ["ignore", "pipe", "inherit"] });
    server.on("error", reject);
    server.on("exit", (code) => reject(new Error(`serve_playground.py exited with ${code}`)));
    server.stdout.setEncoding("utf8");
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/serving (http:\/\/\S+)/);
      if (m) resolve({ url: m[1], process: server });
    });
  });
}

/** Records `page`'s console errors and page errors (and, with `requests`, failed requests) in `problems`. */
export function watch(page, problems, { name = "", requests = false } = {}) {
  const at = name ? `${name} ` : "";
  page.on("console", (msg) => { if (msg.type() === "error") problems.push(`${at}console error: ${msg.text()}`); });
  page.on("pageerror", (err) => problems.push(`${at}page error: ${err.message}`));
  if (requests) page.on("requestfailed", (req) => problems.push(`${at}request failed: ${req.url()}`));
}

/**
 * The shared setup, for a test file's `before`: checks the build exists, starts the server and
 * Chromium. With `open` (the default) it also opens one page at `viewport` on the app and waits
 * for `ready` (a test id). Returns `{ url, browser, context, page, problems, newPage, close }`;
 * `close()` (for `after`) stops both. `problems` collects console and page errors of every
 * page opened through it; each file decides whether they fail it.
 */
export async function setup({ viewport = VIEWPORT, open = true, ready = "app", requests = false, timeout } = {}) {
  assert.ok(fs.existsSync(path.join(DIST, "playground_bg.wasm.gz")), "build first: scripts/playground.sh --build-only");
  const { url, process: server } = await serve();
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  const problems = [];
  const pw = {
    url, browser, problems, context: null, page: null,
    /** A new context at `size` with one page on the app (watched), waiting for `ready`. */
    async newPage({ size = viewport, name = "", at = url } = {}) {
      const context = await browser.newContext({ viewport: size });
      const page = await context.newPage();
      watch(page, problems, { name, requests });
      if (timeout) page.setDefaultTimeout(timeout);
      await page.goto(at);
      if (ready) await page.getByTestId(ready).waitFor();
      return page;
    },
    async close() {
      await browser.close().catch(() => {});
      server.removeAllListeners("exit");
      server.kill();
    },
  };
  if (open) {
    pw.page = await pw.newPage();
    pw.context = pw.page.context();
  }
  return pw;
}

/** Waits until the engine (in its worker) has answered every action the page sent. */
export async function settled(page) {
  await page.locator("[data-testid=app][data-busy=false]").waitFor();
}

/** Injects axe-core into `page` once (a reload removes it; call again after one). */
export async function injectAxe(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE });
}

/**
 * axe-core's violations of any impact on the page as it stands (or within `selector`), one
 * line each: `impact id: first targets`.
 */
export async function axeViolations(page, selector = null) {
  await injectAxe(page);
  return page.evaluate(async (sel) => {
    const r = await window.axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
  }, selector);
}
