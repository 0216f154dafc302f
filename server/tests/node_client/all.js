'use strict';
// Entry point of scripts/suites/node_client.sh: loads every *.test.js of this directory into
// one process, so the client library (a few seconds to load) is loaded once. Each file also
// runs on its own: `node --test admin.test.js` with BIGTABLE_EMULATOR_HOST set.

const fs = require('node:fs');
const path = require('node:path');

for (const file of fs.readdirSync(__dirname).sort()) {
  if (file.endsWith('.test.js')) require(path.join(__dirname, file));
}
