'use strict';
// Shared helpers for the tests of Google's Node.js client (@google-cloud/bigtable) against
// sparsetable-server. The client is used unchanged: BIGTABLE_EMULATOR_HOST, set by
// scripts/suites/node_client.sh to the server it started, is the only thing pointing it at us.
//
// Invariants: every test works in an instance of its own (instances exist implicitly, as in
// Google's emulator), so tests never see each other's tables and may run in any order;
// timestamps written by tests are multiples of 1000 microseconds (the tables' granularity).

const assert = require('node:assert/strict');
const {after} = require('node:test');
const {Bigtable} = require('@google-cloud/bigtable');

const PROJECT = 'node-client';

if (!process.env.BIGTABLE_EMULATOR_HOST) {
  throw new Error(
    'BIGTABLE_EMULATOR_HOST is not set: run these tests through scripts/suites/node_client.sh',
  );
}

let counter = 0;
let shared = null;

/**
 * The process's client of the server under test (one: each client opens its own channels).
 * Client-side metrics are off: they export to Google Cloud Monitoring, not to the server under
 * test, and CI has neither credentials nor a route there.
 */
function client() {
  if (shared === null) shared = new Bigtable({projectId: PROJECT, metricsEnabled: false});
  return shared;
}

// Close the channels when every test has run, so the process exits at once.
after(async () => {
  if (shared !== null) await shared.close();
});

/** An instance no other test uses: `{prefix}-{pid}-{n}` (a valid instance id). */
function freshInstance(bigtable, prefix = 'node') {
  counter += 1;
  return bigtable.instance(`${prefix}-${process.pid}-${counter}`);
}

/** A new table `t` in a fresh instance, created with `families` (as createTable takes them). */
async function freshTable(bigtable, families = ['cf']) {
  const instance = freshInstance(bigtable);
  const [table] = await instance.createTable('t', {families});
  return table;
}

/** Microseconds for `n` milliseconds: timestamps tests write. */
function ms(n) {
  return n * 1000;
}

/**
 * A row as plain data: {family: {qualifier: [[timestampMicros, value, labels?], ...]}},
 * values decoded as UTF-8 strings, labels only when a cell has some.
 */
function plain(row) {
  const out = {};
  for (const [family, columns] of Object.entries(row.data)) {
    out[family] = {};
    for (const [qualifier, cells] of Object.entries(columns)) {
      out[family][qualifier] = cells.map(c => {
        const cell = [Number(c.timestamp), Buffer.isBuffer(c.value) ? c.value.toString() : String(c.value)];
        if (c.labels && c.labels.length > 0) cell.push(c.labels);
        return cell;
      });
    }
  }
  return out;
}

/** Reads every row the options select, as [key, plain(row)] pairs in the order they came. */
async function read(table, options = {}) {
  const rows = [];
  await new Promise((resolve, reject) => {
    table
      .createReadStream(options)
      .on('error', reject)
      .on('data', row => rows.push([row.id, plain(row)]))
      .on('end', resolve);
  });
  return rows;
}

/** The keys `read` returns. */
async function keys(table, options = {}) {
  return (await read(table, options)).map(([key]) => key);
}

/** Asserts that `promise` rejects with gRPC status `code` (a number). */
async function rejectsWithCode(promise, code, what) {
  await assert.rejects(promise, err => {
    assert.equal(err.code, code, `${what}: ${err.message}`);
    return true;
  });
}

/** gRPC status numbers. */
const Code = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  FAILED_PRECONDITION: 9,
};

module.exports = {
  PROJECT,
  Code,
  client,
  freshInstance,
  freshTable,
  ms,
  plain,
  read,
  keys,
  rejectsWithCode,
};
