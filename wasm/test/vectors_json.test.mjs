// Replays every shared test vector (tests/vectors/*.json, format in tests/vectors/README.md)
// through the proto3 JSON API of the Node build's `Database` (createTableJson, mutateRowJson,
// readRowsJson, mutateRows, checkAndMutateRow, readModifyWriteRow, sampleRowKeys,
// dropRowRange, ...). The vectors' proto3 JSON parts are passed to the API exactly as the
// files hold them: that is the point of the JSON API; only the op-level bytes become
// Uint8Arrays, as a caller holding raw keys would pass them. The replayer is the one every
// JavaScript front-end shares (tests/js/replay.mjs `databaseAdapter`, which the browser's
// BrowserDatabase also runs): it checks every expectation, and a vector with an op or field
// it does not know fails. `Database` expresses every capability, so every vector must run
// (bindings/js/test/run.sh runs this file through the installed npm package's Database too,
// SPARSETABLE_NPM_ENTRY in load.mjs).
import { Database, InstanceModel } from "./load.mjs";
import { databaseAdapter } from "../../tests/js/replay.mjs";
import { runVectors } from "../../tests/js/node_runner.mjs";

// create_instance goes to the wasm build's instance model (InstanceModel.create, what the
// npm package's createInstance calls); the package's own entry does not export it, so a run
// through SPARSETABLE_NPM_ENTRY lacks that one call.
const createInstance = InstanceModel === undefined ? undefined : (project, id, cluster) => {
  InstanceModel.create(project, id, { clusters: [{ id: cluster.id, location: cluster.zone }] }, 0).free();
};
const adapter = databaseAdapter((options) => {
  const db = new Database(options);
  return { db, close: () => db.free() };
}, new Map(), createInstance);
runVectors("Database", adapter, { all: createInstance !== undefined });
