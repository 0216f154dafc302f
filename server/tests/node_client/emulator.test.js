'use strict';
// The emulator conventions of Google's Node.js client: constructed with no project id, as a
// test suite written for Google's emulator does (`new Bigtable()`), the client keeps the
// literal project `{{projectId}}` in every resource name it sends to BIGTABLE_EMULATOR_HOST.
// sparsetable-server accepts that placeholder as a project, as Google's emulator does
// (server/src/names.rs, EMULATOR_PROJECT_PLACEHOLDERS).

const {test, after} = require('node:test');
const assert = require('node:assert/strict');
const {Bigtable} = require('@google-cloud/bigtable');
const {read} = require('./support');

// No projectId. (metricsEnabled: false only because client-side metrics export to Google
// Cloud Monitoring, which CI cannot reach; it has nothing to do with the project.)
const bigtable = new Bigtable({metricsEnabled: false});
after(() => bigtable.close());

test('new Bigtable() with no projectId creates, writes and reads', async () => {
  assert.equal(bigtable.projectId, '{{projectId}}');
  const instance = bigtable.instance(`noproject-${process.pid}`);
  const [table] = await instance.createTable('t', {families: ['cf']});
  assert.equal(table.name, `projects/{{projectId}}/instances/noproject-${process.pid}/tables/t`);
  await table.insert([{key: 'r', data: {cf: {q: {value: 'v', timestamp: 1000}}}}]);
  assert.deepEqual(await read(table), [['r', {cf: {q: [[1000, 'v']]}}]]);
  const [tables] = await instance.getTables();
  assert.deepEqual(tables.map(t => t.id), ['t']);
  const [metadata] = await table.getMetadata();
  assert.equal(metadata.name, table.name);
});
