'use strict';
// Every read path of Google's Node.js client: row.get (whole row, some columns), getRows,
// createReadStream by keys, ranges (open and closed bounds), start/end, prefix, prefixes and
// limit, undecoded values, and sampleRowKeys. (The 6.x client has no reversed scans.)

const {test, before} = require('node:test');
const assert = require('node:assert/strict');
const {Code, client, freshTable, ms, read, keys} = require('./support');

const KEYS = ['a', 'app', 'apple', 'b', 'ba', 'c', 'd#1', 'd#2', 'e'];
let table;

before(async () => {
  table = await freshTable(client(), ['cf', 'meta']);
  await table.insert(
    KEYS.map(key => ({
      key,
      data: {cf: {q: {value: `v-${key}`, timestamp: ms(1)}}, meta: {m: {value: 'm', timestamp: ms(1)}}},
    })),
  );
});

test('row.get returns the whole row or only some columns', async () => {
  const [row] = await table.row('app').get();
  assert.equal(row.id, 'app');
  assert.equal(row.data.cf.q[0].value, 'v-app');
  assert.equal(Number(row.data.cf.q[0].timestamp), ms(1));
  assert.equal(row.data.meta.m[0].value, 'm');
  const [q] = await table.row('app').get(['cf:q']);
  assert.equal(q.cf.q[0].value, 'v-app');
  assert.equal(q.meta, undefined);
  // The client itself turns an empty answer into a 404 error.
  await assert.rejects(table.row('missing').get(), err => {
    assert.equal(err.code, 404, err.message);
    return true;
  });
});

test('getRows and createReadStream read every row in key order', async () => {
  const [rows] = await table.getRows();
  assert.deepEqual(rows.map(r => r.id), KEYS);
  assert.deepEqual(await keys(table), KEYS);
});

test('keys select rows; missing keys are skipped', async () => {
  assert.deepEqual(await keys(table, {keys: ['e', 'a', 'zz', 'ba']}), ['a', 'ba', 'e']);
});

test('start/end and ranges with inclusive and exclusive bounds', async () => {
  assert.deepEqual(await keys(table, {start: 'b', end: 'c'}), ['b', 'ba', 'c']);
  assert.deepEqual(
    await keys(table, {ranges: [{start: {value: 'b', inclusive: false}, end: {value: 'd', inclusive: false}}]}),
    ['ba', 'c'],
  );
  assert.deepEqual(
    await keys(table, {ranges: [{start: 'a', end: {value: 'apple', inclusive: false}}, {start: 'e'}]}),
    ['a', 'app', 'e'],
  );
});

test('prefix, prefixes and limit', async () => {
  assert.deepEqual(await keys(table, {prefix: 'ap'}), ['app', 'apple']);
  assert.deepEqual(await keys(table, {prefixes: ['d#', 'b']}), ['b', 'ba', 'd#1', 'd#2']);
  assert.deepEqual(await keys(table, {limit: 3}), ['a', 'app', 'apple']);
  assert.deepEqual(await keys(table, {prefix: 'd#', limit: 1}), ['d#1']);
});

test('decode: false returns values as Buffers', async () => {
  const rows = [];
  await new Promise((resolve, reject) => {
    table
      .createReadStream({keys: ['b'], decode: false})
      .on('error', reject)
      .on('data', row => rows.push(row))
      .on('end', resolve);
  });
  assert.equal(rows.length, 1);
  const value = rows[0].data.cf.q[0].value;
  assert.ok(Buffer.isBuffer(value));
  assert.equal(value.toString(), 'v-b');
});

test('a read of a table that does not exist is NOT_FOUND', async () => {
  await assert.rejects(read(table.instance.table('missing')), err => {
    assert.equal(err.code, Code.NOT_FOUND, err.message);
    return true;
  });
});

test('sampleRowKeys ends with the empty key and offsets grow', async () => {
  const [samples] = await table.sampleRowKeys();
  assert.ok(samples.length >= 1);
  const last = samples[samples.length - 1];
  assert.equal(last.key.length, 0);
  const offsets = samples.map(s => Number(s.offset));
  for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i] >= offsets[i - 1], String(offsets));
});

test('big values round-trip', async () => {
  const big = 'x'.repeat(5 * 1024 * 1024);
  const t = await freshTable(client());
  await t.insert([{key: 'big', data: {cf: {q: {value: big, timestamp: ms(1)}}}}]);
  const [row] = await t.row('big').get();
  assert.equal(row.data.cf.q[0].value.length, big.length);
});
