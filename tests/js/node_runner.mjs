// Registers one node:test test per shared data vector for a front-end's adapter (replay.mjs):
// a vector the adapter cannot express is a skipped test whose reason names the capability or
// value it lacks, every other vector must pass, and a last test checks the count (so no vector
// is dropped silently) and that every skip reason names a capability the adapter lists or a
// vector-specific reason. Prints `NAME vectors: R replayed, S not expressible (of N)` and the
// skip list, one line per vector.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { loadDataVectors } from "./vectors.mjs";
import { cannotReplay, replay } from "./replay.mjs";

/** `expectAtLeast`: the fewest vectors the front-end must replay (a guard against an adapter
 * whose `missing` grows by accident); `all`: it must replay every vector. */
export function runVectors(name, adapter, { root, expectAtLeast = 1, all = false } = {}) {
  const vectors = loadDataVectors(root);
  const skipped = [];
  let ran = 0;
  for (const v of vectors) {
    const reason = cannotReplay(v, adapter);
    if (reason !== null) {
      skipped.push([v.name, reason]);
      test(`${name} vector ${v.file}: ${v.name}`, { skip: reason }, () => {});
      continue;
    }
    test(`${name} vector ${v.file}: ${v.name}`, async () => {
      await replay(v, adapter);
      ran += 1;
    });
  }
  test(`${name}: every vector it can express ran`, () => {
    assert.equal(ran + skipped.length, vectors.length);
    assert.ok(ran >= expectAtLeast, `${name} replayed ${ran} vectors, fewer than ${expectAtLeast}`);
    if (all) assert.deepEqual(skipped, [], `${name} must replay every vector`);
    // A vector pinning the core's words for a rule (expect_message) may be skipped only for a
    // call the front-end does not have, never for a value it cannot express: each front-end
    // must be shown to report the core's message.
    const pinned = new Set(vectors.filter((v) => v.ops.some((op) => op.expect_message !== undefined)).map((v) => v.name));
    assert.deepEqual(skipped.filter(([v, why]) => pinned.has(v) && !why.startsWith("op:")), [], `${name} skipped rule-message vectors`);
  });
  after(() => {
    console.log(`${name} vectors: ${ran} replayed, ${skipped.length} not expressible (of ${vectors.length})`);
    for (const [v, why] of skipped) console.log(`  ${name} cannot express ${v}: ${why}`);
  });
}
