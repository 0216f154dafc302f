// `node --import sparsetable/testing/setup --test ...`: a server for the whole test run, for
// node:test (and any runner that preloads modules). It starts only if BIGTABLE_EMULATOR_HOST
// is not set yet, so test files that node:test runs in child processes reuse the parent's
// server, and a run pointed at another emulator is left alone. The server is killed when the
// process exits.
import process from "node:process";
import { startEmulator } from "./testing.js";

if (!process.env.BIGTABLE_EMULATOR_HOST) {
  await startEmulator();
}
