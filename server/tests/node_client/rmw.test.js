'use strict';
// ReadModifyWriteRow (row.increment, row.createRules with append and increment) and
// CheckAndMutateRow (row.filter with onMatch / onNoMatch) through Google's Node.js client.

const {test} = require('node:test');
const assert = require('node:assert/strict');
const {Code, client, freshTable, ms, read, rejectsWithCode} = require('./support');

/** An 8-byte big-endian int64. */
function int64(n) {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

test('increment counts from a missing cell and returns the new value', async () => {
  const table = await freshTable(client());
  const row = table.row('counter');
  const [first] = await row.increment('cf:hits');
  assert.equal(first, 1);
  const [second] = await row.increment('cf:hits', 41);
  assert.equal(second, 42);
  const [third] = await row.increment('cf:hits', -2);
  assert.equal(third, 40);
  // Stored as an 8-byte big-endian integer, which the client reads back as a number.
  const [got] = await row.get();
  assert.equal(Number(got.data.cf.hits[0].value), 40);
});

test('createRules appends and increments atomically', async () => {
  const table = await freshTable(client());
  const row = table.row('r');
  await row.save({cf: {log: {value: 'a', timestamp: ms(1)}, n: {value: int64(10), timestamp: ms(1)}}});
  const [response] = await row.createRules([
    {column: 'cf:log', append: '-b'},
    {column: 'cf:n', increment: 5},
    {column: 'cf:log', append: '-c'},
  ]);
  const families = response.row.families;
  const byQualifier = {};
  for (const column of families[0].columns) {
    byQualifier[Buffer.from(column.qualifier).toString()] = Buffer.from(column.cells[0].value);
  }
  assert.equal(byQualifier.log.toString(), 'a-b-c');
  assert.deepEqual(byQualifier.n, int64(15));
});

test('incrementing a value that is not 8 bytes is FAILED_PRECONDITION and changes nothing', async () => {
  const table = await freshTable(client());
  const row = table.row('r');
  await row.save({cf: {text: {value: 'abc', timestamp: ms(1)}, log: {value: 'x', timestamp: ms(1)}}});
  await rejectsWithCode(
    row.createRules([{column: 'cf:log', append: 'y'}, {column: 'cf:text', increment: 1}]),
    Code.FAILED_PRECONDITION,
    'increment of 3 bytes',
  );
  assert.deepEqual(await read(table), [['r', {cf: {log: [[ms(1), 'x']], text: [[ms(1), 'abc']]}}]]);
});

test('check-and-mutate takes the true branch when the predicate matches', async () => {
  const table = await freshTable(client());
  const row = table.row('r');
  await row.save({cf: {status: {value: 'active', timestamp: ms(1)}}});
  const [matched] = await row.filter([{column: 'status'}, {value: 'active'}], {
    onMatch: [{method: 'insert', data: {cf: {result: {value: 'yes', timestamp: ms(2)}}}}],
    onNoMatch: [{method: 'insert', data: {cf: {result: {value: 'no', timestamp: ms(2)}}}}],
  });
  assert.equal(matched, true);
  assert.equal((await row.get())[0].data.cf.result[0].value, 'yes');
});

test('check-and-mutate takes the false branch when nothing matches', async () => {
  const table = await freshTable(client());
  const row = table.row('r');
  await row.save({cf: {status: {value: 'inactive', timestamp: ms(1)}, old: {value: 'o', timestamp: ms(1)}}});
  const [matched] = await row.filter({value: 'active'}, {
    onMatch: [{method: 'delete'}],
    onNoMatch: [
      {method: 'insert', data: {cf: {result: {value: 'no', timestamp: ms(2)}}}},
      {method: 'delete', data: ['cf:old']},
    ],
  });
  assert.equal(matched, false);
  assert.deepEqual(await read(table), [
    ['r', {cf: {result: [[ms(2), 'no']], status: [[ms(1), 'inactive']]}}],
  ]);
  // On a row that does not exist nothing matches either.
  const [missing] = await table.row('ghost').filter({all: true}, {
    onNoMatch: [{method: 'insert', data: {cf: {q: {value: 'made', timestamp: ms(3)}}}}],
  });
  assert.equal(missing, false);
  assert.equal((await table.row('ghost').get())[0].data.cf.q[0].value, 'made');
});
