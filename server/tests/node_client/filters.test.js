'use strict';
// Filters as Google's Node.js client builds them (the shapes of Google's filter samples):
// chains, interleaves, row key / family / qualifier / value regexes, column and value ranges,
// cells per row and per column limits, cells per row offset, timestamp ranges, strip value,
// labels, pass/block all, sink, sampling, and conditions.

const {test, before} = require('node:test');
const assert = require('node:assert/strict');
const {Code, client, freshTable, ms, read, keys} = require('./support');

let table;

before(async () => {
  table = await freshTable(client(), ['stats_summary', 'cell_plan']);
  const row = (key, os, plan) => ({
    key,
    data: {
      stats_summary: {
        connected_cell: {value: '1', timestamp: ms(2)},
        connected_wifi: {value: '1', timestamp: ms(2)},
        os_build: {value: os, timestamp: ms(2)},
      },
      cell_plan: plan,
    },
  });
  await table.insert([
    row('phone#4c410523#20190501', 'PQ2A.190405.003', {
      data_plan_01gb: {value: 'true', timestamp: ms(2)},
      data_plan_05gb: {value: 'true', timestamp: ms(2)},
    }),
    row('phone#4c410523#20190502', 'PQ2A.190405.004', {data_plan_05gb: {value: 'true', timestamp: ms(2)}}),
    row('phone#4c410523#20190505', 'PQ2A.190406.000', {data_plan_05gb: {value: 'true', timestamp: ms(2)}}),
    row('phone#5c10102#20190501', 'PQ2A.190401.002', {data_plan_10gb: {value: 'true', timestamp: ms(2)}}),
    row('phone#5c10102#20190502', 'PQ2A.190406.000', {data_plan_10gb: {value: 'true', timestamp: ms(2)}}),
  ]);
  // A second version of one cell, older: for per-column limits and timestamp ranges. (Not
  // at 0: the client replaces a falsy timestamp with the current time.)
  await table.insert([
    {key: 'phone#4c410523#20190501', data: {cell_plan: {data_plan_01gb: {value: 'false', timestamp: ms(1)}}}},
  ]);
});

/** The (key, family, qualifier, value) of every cell a filter passes, in order. */
async function cells(filter, options = {}) {
  const out = [];
  for (const [key, families] of await read(table, {...options, filter})) {
    for (const [family, columns] of Object.entries(families)) {
      for (const [qualifier, versions] of Object.entries(columns)) {
        for (const [, value, labels] of versions) {
          out.push(labels ? [key, family, qualifier, value, labels] : [key, family, qualifier, value]);
        }
      }
    }
  }
  return out;
}

test('row key regex and row sample', async () => {
  assert.deepEqual(await keys(table, {filter: {row: /.*#20190501$/}}), [
    'phone#4c410523#20190501',
    'phone#5c10102#20190501',
  ]);
  // The probability must be strictly between 0 and 1 (Bigtable's rule), so the result is
  // random: only bounds are checked.
  assert.ok((await keys(table, {filter: {row: {sample: 0.75}}})).length <= 5);
  await assert.rejects(read(table, {filter: {row: {sample: 1}}}), err => {
    assert.equal(err.code, Code.INVALID_ARGUMENT, err.message);
    return true;
  });
});

test('family and qualifier regexes', async () => {
  const fams = await cells({family: /cell_.*$/});
  assert.ok(fams.length > 0);
  assert.ok(fams.every(c => c[1] === 'cell_plan'));
  const quals = await cells({column: /connected_.*$/});
  assert.equal(quals.length, 10);
  assert.ok(quals.every(c => c[2].startsWith('connected_')));
});

test('column range with an exclusive end', async () => {
  const got = await cells({
    column: {family: 'cell_plan', start: 'data_plan_01gb', end: {value: 'data_plan_10gb', inclusive: false}},
  });
  assert.ok(got.length > 0);
  assert.ok(got.every(c => c[1] === 'cell_plan' && c[2] !== 'data_plan_10gb'), JSON.stringify(got));
});

test('value regex and value range', async () => {
  const regex = await cells({value: /PQ2A\.190405.*$/});
  assert.deepEqual(regex.map(c => c[3]), ['PQ2A.190405.003', 'PQ2A.190405.004']);
  const range = await cells({value: {start: 'PQ2A.190405', end: 'PQ2A.190406'}});
  assert.deepEqual(range.map(c => c[3]), ['PQ2A.190405.003', 'PQ2A.190405.004']);
});

test('cells per row limit and offset, cells per column limit', async () => {
  const limited = await read(table, {filter: {row: {cellLimit: 2}}});
  for (const [, families] of limited) {
    const n = Object.values(families).flatMap(cols => Object.values(cols)).flat().length;
    assert.equal(n, 2);
  }
  const first = await read(table, {keys: ['phone#4c410523#20190501'], filter: {row: {cellOffset: 4}}});
  const n = Object.values(first[0][1]).flatMap(cols => Object.values(cols)).flat().length;
  // 6 cells (one column holds two versions) minus the first 4.
  assert.equal(n, 2);
  const latest = await cells({column: {cellLimit: 1}}, {keys: ['phone#4c410523#20190501']});
  assert.deepEqual(
    latest.filter(c => c[2] === 'data_plan_01gb').map(c => c[3]),
    ['true'],
  );
});

test('timestamp range', async () => {
  // [1 ms, 2 ms): only the cell written at 1 ms.
  const got = await cells({time: {start: new Date(1), end: new Date(2)}});
  assert.deepEqual(got, [['phone#4c410523#20190501', 'cell_plan', 'data_plan_01gb', 'false']]);
});

test('strip value, labels, pass all and block all', async () => {
  const stripped = await cells({value: {strip: true}}, {keys: ['phone#5c10102#20190502']});
  assert.ok(stripped.length > 0 && stripped.every(c => c[3] === ''));
  const labelled = await cells([{family: 'cell_plan'}, {label: 'plan'}], {keys: ['phone#5c10102#20190502']});
  assert.deepEqual(labelled, [['phone#5c10102#20190502', 'cell_plan', 'data_plan_10gb', 'true', ['plan']]]);
  assert.equal((await keys(table, {filter: {all: true}})).length, 5);
  assert.deepEqual(await keys(table, {filter: {all: false}}), []);
});

test('chain: filters applied in order', async () => {
  // Value regexes match the whole value, as RE2 full matches do.
  assert.deepEqual(await cells({value: /PQ2A\.190406/}), []);
  const got = await cells([{column: {cellLimit: 1}}, {value: /PQ2A\.190406.*/}]);
  assert.deepEqual(got.map(c => c[0]), ['phone#4c410523#20190505', 'phone#5c10102#20190502']);
});

test('interleave: the union of its filters', async () => {
  const got = await cells({interleave: [{value: /PQ2A\.190401.*/}, {column: /data_plan_10gb/}]});
  // Sorted: the order of families within a row is Bigtable's (creation order), which this
  // test does not check.
  assert.deepEqual(got.map(c => [c[0], c[2]]).sort(), [
    ['phone#5c10102#20190501', 'data_plan_10gb'],
    ['phone#5c10102#20190501', 'os_build'],
    ['phone#5c10102#20190502', 'data_plan_10gb'],
  ]);
});

test('sink inside an interleave and a condition filter', async () => {
  const sunk = await cells(
    {interleave: [[{family: 'cell_plan'}, {label: 'sunk'}, {sink: true}], {column: /os_build/}]},
    {keys: ['phone#5c10102#20190502']},
  );
  assert.deepEqual(sunk.map(c => c[2]).sort(), ['data_plan_10gb', 'os_build']);
  const cond = await cells(
    {
      condition: {
        test: [{column: /data_plan_10gb/}, {value: 'true'}],
        pass: {label: 'ten'},
        fail: {label: 'other'},
      },
    },
    {keys: ['phone#4c410523#20190502', 'phone#5c10102#20190502']},
  );
  const labelsOf = key => [...new Set(cond.filter(c => c[0] === key).map(c => c[4][0]))];
  assert.deepEqual(labelsOf('phone#4c410523#20190502'), ['other']);
  assert.deepEqual(labelsOf('phone#5c10102#20190502'), ['ten']);
});

test('an invalid regex is INVALID_ARGUMENT', async () => {
  await assert.rejects(read(table, {filter: {value: '(unclosed'}}), err => {
    assert.equal(err.code, Code.INVALID_ARGUMENT, err.message);
    return true;
  });
});
