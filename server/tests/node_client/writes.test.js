'use strict';
// Every write path of Google's Node.js client: insert, mutate (bulk MutateRows with inserts
// and deletes), row.save and row.create, setCell with explicit timestamps, deleteCells of
// columns and families, deleteFromColumn with a time range, and deleting rows.

const {test} = require('node:test');
const assert = require('node:assert/strict');
const {Code, client, freshTable, ms, read, keys, rejectsWithCode} = require('./support');

test('insert writes many rows in one bulk call', async () => {
  const table = await freshTable(client(), ['cf', 'other']);
  const entries = [];
  for (let i = 0; i < 50; i++) {
    const key = `row-${String(i).padStart(2, '0')}`;
    entries.push({key, data: {cf: {q: {value: `v${i}`, timestamp: ms(1)}}, other: {n: {value: key, timestamp: ms(1)}}}});
  }
  await table.insert(entries);
  const rows = await read(table);
  assert.equal(rows.length, 50);
  assert.deepEqual(rows[7], ['row-07', {cf: {q: [[ms(1), 'v7']]}, other: {n: [[ms(1), 'row-07']]}}]);
});

test('setCell with explicit timestamps keeps versions newest first', async () => {
  const table = await freshTable(client());
  await table.insert([{key: 'r', data: {cf: {q: {value: 'old', timestamp: ms(1)}}}}]);
  await table.insert([{key: 'r', data: {cf: {q: {value: 'new', timestamp: ms(3)}}}}]);
  await table.insert([{key: 'r', data: {cf: {q: {value: 'mid', timestamp: ms(2)}}}}]);
  const [row] = await table.row('r').get();
  assert.deepEqual(
    row.data.cf.q.map(c => [Number(c.timestamp), c.value]),
    [[ms(3), 'new'], [ms(2), 'mid'], [ms(1), 'old']],
  );
  // A Date timestamp is converted to microseconds by the client.
  await table.insert([{key: 'd', data: {cf: {q: {value: 'x', timestamp: new Date(5)}}}}]);
  assert.deepEqual(await read(table, {keys: ['d']}), [['d', {cf: {q: [[ms(5), 'x']]}}]]);
});

test('mutate mixes inserts and deletes in one MutateRows call', async () => {
  const table = await freshTable(client(), ['cf', 'gone']);
  await table.insert([
    {key: 'a', data: {cf: {q: {value: '1', timestamp: ms(1)}}, gone: {x: {value: 'x', timestamp: ms(1)}}}},
    {key: 'b', data: {cf: {q: {value: '2', timestamp: ms(1)}}}},
    {key: 'c', data: {cf: {q: {value: '3', timestamp: ms(1)}}}},
  ]);
  await table.mutate([
    {method: 'insert', key: 'd', data: {cf: {q: {value: '4', timestamp: ms(1)}}}},
    {method: 'delete', key: 'b'},
    {method: 'delete', key: 'a', data: ['gone']},
    {method: 'delete', key: 'c', data: ['cf:q']},
  ]);
  assert.deepEqual(await read(table), [
    ['a', {cf: {q: [[ms(1), '1']]}}],
    ['d', {cf: {q: [[ms(1), '4']]}}],
  ]);
});

test('a failing entry of a bulk mutate fails alone', async () => {
  const table = await freshTable(client());
  await assert.rejects(
    table.mutate([
      {method: 'insert', key: 'ok', data: {cf: {q: {value: 'v', timestamp: ms(1)}}}},
      {method: 'insert', key: 'bad', data: {nope: {q: {value: 'v', timestamp: ms(1)}}}},
    ]),
    err => {
      assert.equal(err.name, 'PartialFailureError');
      assert.equal(err.errors.length, 1);
      assert.equal(err.errors[0].entry.key, 'bad');
      assert.equal(err.errors[0].code, Code.NOT_FOUND);
      return true;
    },
  );
  assert.deepEqual(await keys(table), ['ok']);
});

test('row.save, row.create, row.exists and row.delete', async () => {
  const table = await freshTable(client());
  const row = table.row('r');
  await row.save({cf: {q: {value: 'saved', timestamp: ms(1)}}});
  assert.equal((await row.exists())[0], true);
  await table.row('created').create({entry: {cf: {q: {value: 'c', timestamp: ms(1)}}}});
  assert.deepEqual(await keys(table), ['created', 'r']);
  await row.delete();
  assert.equal((await row.exists())[0], false);
  assert.deepEqual(await keys(table), ['created']);
});

test('deleteCells removes columns and families; time-ranged deletes remove some versions', async () => {
  const table = await freshTable(client(), ['cf', 'fam']);
  await table.insert([
    {
      key: 'r',
      data: {
        cf: {a: {value: 'a', timestamp: ms(1)}, b: {value: 'b', timestamp: ms(1)}},
        fam: {x: {value: 'x', timestamp: ms(1)}},
      },
    },
  ]);
  for (const t of [1, 2, 3, 4]) {
    await table.insert([{key: 'v', data: {cf: {q: {value: `v${t}`, timestamp: ms(t)}}}}]);
  }
  await table.row('r').deleteCells(['cf:a', 'fam']);
  assert.deepEqual(await read(table, {keys: ['r']}), [['r', {cf: {b: [[ms(1), 'b']]}}]]);
  // Delete versions in [2 ms, 4 ms): the 2 and 3 ms cells.
  await table.mutate({
    method: 'delete',
    key: 'v',
    data: [{column: 'cf:q', time: {start: new Date(2), end: new Date(4)}}],
  });
  assert.deepEqual(await read(table, {keys: ['v']}), [['v', {cf: {q: [[ms(4), 'v4'], [ms(1), 'v1']]}}]]);
});

test('writing to an unknown family or table is NOT_FOUND', async () => {
  const bigtable = client();
  const table = await freshTable(bigtable);
  // row.save goes through MutateRows: the entry fails, with its own status.
  await assert.rejects(table.row('r').save({nope: {q: 'v'}}), err => {
    assert.equal(err.errors[0].code, Code.NOT_FOUND, err.message);
    return true;
  });
  await rejectsWithCode(
    table.instance.table('missing').row('r').save({cf: {q: 'v'}}),
    Code.NOT_FOUND,
    'unknown table',
  );
});
