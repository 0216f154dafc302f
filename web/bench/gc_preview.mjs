// How long the playground takes to preview a GC-rule edit on a 100,000-row table (issue 33:
// the preview re-reads the table's stored cells on every edit, in the engine's worker).
// Not a test: a measurement for docs/benchmarks.md. Against a release build in
// $PLAYGROUND_DIST or web/dist/ (scripts/playground.sh --build-only), in Debian's Chromium:
//   node web/bench/gc_preview.mjs
// Prints the time from each edit of the max-versions field to the preview on screen.
import { settled, setup } from "../test/support.mjs";

// The shared Playwright setup of the browser tests: the build check, the server, Chromium.
const pw = await setup({ timeout: 180_000 });
try {
  const p = pw.page;
  await p.getByTestId("view-data").click();
  const form = p.getByTestId("create-table-form");
  await form.getByTestId("table-id").fill("big");
  await form.getByTestId("families").fill("cf");
  await form.getByTestId("max-versions").fill("1");
  await form.getByTestId("create-table").click();
  await p.getByTestId("table-tab").filter({ hasText: "big" }).waitFor();
  await p.getByTestId("load-100k").click();
  await p.getByTestId("notice").filter({ hasText: "Loaded 100000 rows" }).waitFor();
  await settled(p);
  const gc = p.getByTestId("gc-cf");
  const times = [];
  for (const v of ["3", "1", "5", "1", "2", "1", "4"]) {
    const t0 = performance.now();
    await gc.getByTestId("gc-cf-versions").fill(v);
    if (v === "1") {
      await settled(p); // back to the rule itself: nothing to preview
      continue;
    }
    await gc.getByTestId("gc-preview").filter({ hasText: "If applied" }).waitFor({ timeout: 120_000 });
    times.push(performance.now() - t0);
  }
  console.log(`GC-rule preview, 100,000 rows: ${times.map((t) => t.toFixed(0)).join(", ")} ms (median ${
    times.sort((a, b) => a - b)[times.length >> 1].toFixed(0)} ms)`);
} finally {
  await pw.close();
}
