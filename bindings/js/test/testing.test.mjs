// `sparsetable/testing` on the installed package: startEmulator() starts the real
// sparsetable-server (SPARSETABLE_SERVER_BIN, which run.sh points at the debug build), sets
// BIGTABLE_EMULATOR_HOST, and stop() stops it and restores the variable; a binary that is
// missing or exits at once is an error that says so; `--import sparsetable/testing/setup`
// gives a whole test process a server and kills it when the process exits.
import { test } from "node:test";
import assert from "node:assert/strict";
import http2 from "node:http2";
import { execFileSync } from "node:child_process";
import { startEmulator } from "sparsetable/testing";

// An HTTP/2 session (what gRPC runs on) to `address`: resolves true once connected.
const reachable = (address) =>
  new Promise((resolve) => {
    const session = http2.connect(`http://${address}`);
    session.once("connect", () => { session.close(); resolve(true); });
    session.once("error", () => { session.destroy(); resolve(false); });
  });

test("startEmulator starts a server, points BIGTABLE_EMULATOR_HOST at it, and stop() undoes both", async () => {
  assert.ok(process.env.SPARSETABLE_SERVER_BIN, "run.sh sets SPARSETABLE_SERVER_BIN");
  delete process.env.BIGTABLE_EMULATOR_HOST;
  const emulator = await startEmulator({ clockMicros: 1_700_000_000_000_000 });
  assert.match(emulator.address, /^127\.0\.0\.1:\d+$/);
  assert.equal(emulator.address, `${emulator.host}:${emulator.port}`);
  assert.equal(process.env.BIGTABLE_EMULATOR_HOST, emulator.address);
  assert.equal(await reachable(emulator.address), true);
  await emulator.stop();
  await emulator.stop(); // twice is harmless
  assert.equal(process.env.BIGTABLE_EMULATOR_HOST, undefined);
  assert.equal(await reachable(emulator.address), false);
});

test("two emulators run side by side on their own ports", async () => {
  const [a, b] = await Promise.all([startEmulator({ setEnv: false }), startEmulator({ setEnv: false })]);
  try {
    assert.notEqual(a.port, b.port);
    assert.equal(process.env.BIGTABLE_EMULATOR_HOST, undefined);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("a missing binary or one that exits at once is a clear error, not a hang", async () => {
  await assert.rejects(startEmulator({ binary: "/nonexistent/sparsetable-server" }), /could not be started.*SPARSETABLE_SERVER_BIN/s);
  await assert.rejects(startEmulator({ binary: process.env.SPARSETABLE_SERVER_BIN, args: ["--no-such-flag"] }), /exited before it listened/);
  await assert.rejects(startEmulator({ clockMicros: 1.5 }), TypeError);
});

test("--import sparsetable/testing/setup gives a process a server and kills it at exit", async () => {
  const env = { ...process.env };
  delete env.BIGTABLE_EMULATOR_HOST;
  const address = execFileSync(process.execPath, ["--import", "sparsetable/testing/setup", "-e", "console.log(process.env.BIGTABLE_EMULATOR_HOST)"], { env, encoding: "utf8" }).trim();
  assert.match(address, /^127\.0\.0\.1:\d+$/);
  assert.equal(await reachable(address), false, "the server went with the process");
  // Already set: the setup leaves it alone (a child of node --test reuses its parent's).
  const kept = execFileSync(process.execPath, ["--import", "sparsetable/testing/setup", "-e", "console.log(process.env.BIGTABLE_EMULATOR_HOST)"], { env: { ...env, BIGTABLE_EMULATOR_HOST: "elsewhere:1" }, encoding: "utf8" }).trim();
  assert.equal(kept, "elsewhere:1");
});
