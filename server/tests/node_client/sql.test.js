'use strict';
// Google's Node client's SQL (Instance#prepareStatement / #executeQuery) against the server.
// Before the server stopped sending an estimated_batch_size, every executeQuery failed inside
// the client with "Failed to process response: TypeError: Cannot read properties of undefined
// (reading 'length')": the client pre-sizes its batch buffer with that many empty slots.

const assert = require('node:assert/strict');
const {test} = require('node:test');
const {SqlTypes} = require('@google-cloud/bigtable');
const {client, freshTable, ms} = require('./support');

async function filled() {
  const table = await freshTable(client(), ['cf']);
  for (const [key, name, n] of [
    ['a', 'alice', 3],
    ['b', 'bob', 1],
    ['c', 'carol', 2],
  ]) {
    await table.insert([
      {key, data: {cf: {name: {value: name, timestamp: ms(1)}, n: {value: String(n), timestamp: ms(1)}}}},
    ]);
  }
  return table;
}

test('prepareStatement and executeQuery return typed rows', async () => {
  const table = await filled();
  const [statement] = await table.instance.prepareStatement({
    query: 'SELECT _key, SAFE_CONVERT_BYTES_TO_STRING(cf[\'name\']) AS name FROM t WHERE _key >= @from ORDER BY _key',
    parameterTypes: {from: SqlTypes.Bytes()},
  });
  const [rows] = await table.instance.executeQuery({
    preparedStatement: statement,
    parameters: {from: Buffer.from('b')},
  });
  assert.deepEqual(
    rows.map(r => [Buffer.from(r.get('_key')).toString(), r.get('name')]),
    [['b', 'bob'], ['c', 'carol']],
  );
});

test('aggregates, ORDER BY and an empty result come through the client', async () => {
  const table = await filled();
  const [count] = await table.instance.prepareStatement('SELECT COUNT(*) AS n FROM t');
  const [rows] = await table.instance.executeQuery(count);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].get('n'), 3n);
  const [none] = await table.instance.prepareStatement("SELECT _key FROM t WHERE _key = 'zz'");
  const [empty] = await table.instance.executeQuery(none);
  assert.deepEqual(empty, []);
  const [bad] = await Promise.allSettled([
    table.instance.prepareStatement('DELETE FROM t WHERE TRUE'),
  ]);
  assert.equal(bad.status, 'rejected');
  assert.equal(bad.reason.code, 3); // INVALID_ARGUMENT
});

test('a prepared statement gone stale by a schema change is prepared again by the client', async () => {
  // The server answers FAILED_PRECONDITION with a PREPARED_QUERY_EXPIRED violation; Google's
  // client marks the statement expired, prepares it again and runs it, unseen by the caller.
  const table = await filled();
  const [statement] = await table.instance.prepareStatement('SELECT * FROM t');
  const [before] = await table.instance.executeQuery(statement);
  const names = row => row.values.map((_, i) => row.getFieldNameAtIndex(i));
  assert.deepEqual(names(before[0]), ['_key', 'cf']);
  await table.createFamily('extra');
  await table.insert([{key: 'd', data: {extra: {q: {value: 'x', timestamp: ms(1)}}}}]);
  const [after] = await table.instance.executeQuery(statement);
  assert.equal(after.length, 4);
  assert.deepEqual(names(after[0]), ['_key', 'cf', 'extra']);
});
