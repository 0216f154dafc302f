// Every shared data vector (tests/vectors/*.json) the Node build's InstancePlane (the core's
// InstanceData, one cluster, the default app profile) can express, through its proto3 JSON
// data calls: tables created with createTableJson, every data call routed through "" and its
// `{value}` read, the manual clock moved with advanceClock. What it cannot express (its table
// admin calls beyond creation, a GC mode) is listed by vector with the reason
// (tests/js/replay.mjs planeAdapter); everything else must pass.
import { InstancePlane } from "./load.mjs";
import { planeAdapter } from "../../tests/js/replay.mjs";
import { runVectors } from "../../tests/js/node_runner.mjs";

const adapter = planeAdapter((options) => new InstancePlane(options), {
  replicated: false,
  errorCode: (e) => (e && e.name === "SparsetableError" && typeof e.code === "string" ? e.code : undefined),
});
runVectors("InstancePlane", adapter, { expectAtLeast: 200 });
