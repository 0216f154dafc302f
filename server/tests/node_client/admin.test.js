'use strict';
// Table admin through Google's Node.js client: tables, families with and without GC rules,
// getFamilies/getMetadata, deleting tables and dropping row ranges, consistency tokens.

const {test} = require('node:test');
const assert = require('node:assert/strict');
const {Code, client, freshInstance, freshTable, keys, rejectsWithCode} = require('./support');

test('createTable with families with and without GC rules, then getFamilies', async () => {
  const bigtable = client();
  const instance = freshInstance(bigtable);
  const [table, response] = await instance.createTable('t', {
    families: [
      'plain',
      {name: 'versions', rule: {versions: 2}},
      {name: 'aged', rule: {age: {seconds: 3600, nanos: 0}}},
      {name: 'either', rule: {versions: 1, age: {seconds: 60}, union: true}},
    ],
  });
  assert.equal(table.id, 't');
  assert.equal(response.name, `${instance.name}/tables/t`);
  const [families] = await table.getFamilies();
  const byId = Object.fromEntries(families.map(f => [f.id, f.metadata]));
  assert.deepEqual(Object.keys(byId).sort(), ['aged', 'either', 'plain', 'versions']);
  // A family without a GC rule has no rule (and its entry decodes at all: the server sends
  // the map value even when it is an empty message).
  assert.equal(byId.plain.gcRule, null);
  assert.equal(byId.versions.gcRule.maxNumVersions, 2);
  assert.equal(Number(byId.aged.gcRule.maxAge.seconds), 3600);
  const union = byId.either.gcRule.union.rules;
  assert.equal(union.length, 2);
  assert.deepEqual(union.map(r => r.rule).sort(), ['maxAge', 'maxNumVersions']);
});

test('createFamily, family.getMetadata, setMetadata and delete', async () => {
  const bigtable = client();
  const table = await freshTable(bigtable, ['cf']);
  const [family] = await table.createFamily('added');
  assert.equal(family.id, 'added');
  // The client keeps the whole table the server answered as the family's metadata.
  const [withRule] = await table.createFamily('ruled', {rule: {versions: 3}});
  assert.equal(withRule.metadata.columnFamilies.ruled.gcRule.maxNumVersions, 3);
  assert.equal(withRule.metadata.columnFamilies.added.gcRule, null);
  const [metadata] = await table.family('ruled').getMetadata();
  assert.equal(metadata.gcRule.maxNumVersions, 3);
  await table.family('ruled').setMetadata({rule: {versions: 1}});
  const [after] = await table.family('ruled').getMetadata();
  assert.equal(after.gcRule.maxNumVersions, 1);
  assert.equal((await table.family('added').exists())[0], true);
  await table.family('added').delete();
  assert.equal((await table.family('added').exists())[0], false);
  await rejectsWithCode(table.createFamily('cf'), Code.ALREADY_EXISTS, 'existing family');
});

test('table get, getMetadata, exists, getTables and delete', async () => {
  const bigtable = client();
  const instance = freshInstance(bigtable);
  await instance.createTable('a', {families: ['cf']});
  await instance.createTable('b');
  const [table, metadata] = await instance.table('a').get();
  assert.equal(table.id, 'a');
  assert.deepEqual(Object.keys(metadata.columnFamilies), ['cf']);
  const [schema] = await instance.table('a').getMetadata({view: 'schema'});
  assert.deepEqual(Object.keys(schema.columnFamilies), ['cf']);
  const [tables] = await instance.getTables();
  assert.deepEqual(tables.map(t => t.id).sort(), ['a', 'b']);
  assert.equal((await instance.table('b').exists())[0], true);
  await instance.table('b').delete();
  assert.equal((await instance.table('b').exists())[0], false);
  await rejectsWithCode(instance.table('b').getMetadata(), Code.NOT_FOUND, 'deleted table');
  await rejectsWithCode(instance.createTable('a'), Code.ALREADY_EXISTS, 'existing table');
});

test('deleteRows drops a prefix and truncate drops everything', async () => {
  const bigtable = client();
  const table = await freshTable(bigtable);
  await table.insert(
    ['app#1', 'app#2', 'apple', 'web#1'].map(key => ({key, data: {cf: {q: 'v'}}})),
  );
  await table.deleteRows('app#');
  assert.deepEqual(await keys(table), ['apple', 'web#1']);
  await table.truncate();
  assert.deepEqual(await keys(table), []);
});

test('consistency: a generated token is consistent, a made-up one is INVALID_ARGUMENT', async () => {
  const bigtable = client();
  const table = await freshTable(bigtable);
  const [token] = await table.generateConsistencyToken();
  const [consistent] = await table.checkConsistency(token);
  assert.equal(consistent, true);
  await rejectsWithCode(table.checkConsistency('not-a-token'), Code.INVALID_ARGUMENT, 'bad token');
  const [done] = await table.waitForReplication();
  assert.equal(done, true);
});
