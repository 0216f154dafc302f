'use strict';
// ReadRows streams that fail mid-way, through Google's Node client, unchanged. The server's
// ReplicationControl service (sparsetable.testing.v1, wire contract in
// server/src/replication_control.rs) injects a fault with `after_rows`: the next ReadRows
// delivers that many rows, then ends with UNAVAILABLE. The client's createReadStream resumes
// by itself (the rest of the row set, the limit lowered), so the application sees every row
// exactly once.

const assert = require('node:assert/strict');
const {test} = require('node:test');
const grpc = require('@grpc/grpc-js');

const {PROJECT, client, freshInstance, keys} = require('./support');

const ROWS = 600; // more than one server batch (256 rows)

function key(i) {
  return `r${String(i).padStart(4, '0')}`;
}

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Buffer.from(out);
}

function stringField(tag, text) {
  const bytes = Buffer.from(text);
  return Buffer.concat([varint((tag << 3) | 2), varint(bytes.length), bytes]);
}

function uintField(tag, n) {
  return Buffer.concat([varint(tag << 3), varint(n)]);
}

/** InjectFault{instance = 1, rpc = 2, code = 4, count = 5, after_rows = 8}. */
async function dropReads(instanceId, afterRows, count) {
  const request = Buffer.concat([
    stringField(1, `projects/${PROJECT}/instances/${instanceId}`),
    stringField(2, 'ReadRows'),
    uintField(4, 14),
    uintField(5, count),
    uintField(8, afterRows),
  ]);
  const channel = new grpc.Client(process.env.BIGTABLE_EMULATOR_HOST, grpc.credentials.createInsecure());
  try {
    await new Promise((resolve, reject) => {
      channel.makeUnaryRequest(
        '/sparsetable.testing.v1.ReplicationControl/InjectFault',
        b => b,
        b => b,
        request,
        (err, reply) => (err ? reject(err) : resolve(reply)),
      );
    });
  } finally {
    channel.close();
  }
}

async function tableWithRows() {
  const instance = freshInstance(client(), 'resume');
  const [table] = await instance.createTable('t', {families: ['cf']});
  const entries = [];
  for (let i = 0; i < ROWS; i++) {
    entries.push({key: key(i), data: {cf: {q: {value: key(i), timestamp: 1000}}}});
  }
  await table.insert(entries);
  return {table, instanceId: instance.id};
}

function range(a, b) {
  const out = [];
  for (let i = a; i < b; i++) out.push(key(i));
  return out;
}

test('createReadStream resumes a read dropped mid-stream and returns every row once', async () => {
  const {table, instanceId} = await tableWithRows();
  const cases = [
    ['full table', {}, range(0, ROWS)],
    ['limit', {limit: 450}, range(0, 450)],
    [
      'ranges and keys',
      {keys: [key(3), key(590)], ranges: [{start: key(100), end: {value: key(200), inclusive: false}}]},
      [key(3), ...range(100, 200), key(590)],
    ],
    ['a range with a limit', {start: key(20), end: key(579), limit: 400}, range(20, 420)],
  ];
  for (const [name, options, expected] of cases) {
    await dropReads(instanceId, 60, 3);
    const got = await keys(table, options);
    assert.equal(got.length, expected.length, name);
    assert.deepEqual(got, expected, `${name}: every row once, in order`);
  }
});
