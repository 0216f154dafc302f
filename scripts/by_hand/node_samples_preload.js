// Loaded with `node --require` into Google's Node sample tests and every sample they spawn
// (scripts/by_hand/node_samples.sh). The `Bigtable` class follows BIGTABLE_EMULATOR_HOST by
// itself, but some samples and the tests' own set-up build the generated v2 admin clients
// directly, which know nothing of an emulator and look for Google credentials. This points
// those clients at the same host, over an insecure channel, under the project placeholder
// `{{projectId}}` that the `Bigtable` class sends when no project is given, so both kinds of
// client name the same instances and tables.
const path = require("path");

const modules = path.join(process.cwd(), "node_modules");
const bigtable = require(path.join(modules, "@google-cloud/bigtable"));
const { grpc } = require(path.join(modules, "google-gax"));
const [host, port] = process.env.BIGTABLE_EMULATOR_HOST.split(":");

for (const name of ["BigtableInstanceAdminClient", "BigtableTableAdminClient", "BigtableClient"]) {
  const Generated = bigtable.v2[name];
  class Pointed extends Generated {
    constructor(options = {}) {
      super({
        servicePath: host,
        port: Number(port),
        sslCreds: grpc.credentials.createInsecure(),
        projectId: "{{projectId}}",
        ...options,
      });
    }
  }
  Object.defineProperty(bigtable.v2, name, { value: Pointed, configurable: true, writable: true });
}
