// The package's SQL surface as a Node user meets it (Google's client shape): prepareStatement
// executeQuery and createExecuteQueryStream, values of the client's classes both ways, and
// errors as BigtableErrors with the engine's codes. The shared SQL vectors run in sql_vectors.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { Bigtable, BigtableDate, BigtableError, EncodedKeyMap, PreciseDate, PreparedStatement, QueryResultRow, SqlTypes, Status } from "sparsetable";

let n = 0;
async function instanceWithRows() {
  const instance = new Bigtable({ projectId: `sql${n++}`, clockMicros: 1_700_000_000_000_000 }).instance("i");
  const [table] = await instance.createTable("t", { families: ["cf"] });
  await table.insert([
    { key: "r1", data: { cf: { q: { value: "v1", timestamp: 1000 } } } },
    { key: "r2", data: { cf: { q: { value: "v2", timestamp: 2000 } } } },
  ]);
  return instance;
}

test("executeQuery returns QueryResultRows and ResultSetMetadata with the client's value classes", async () => {
  const instance = await instanceWithRows();
  const [rows, metadata] = await instance.executeQuery({
    query: "SELECT _key, cf['q'] AS v, @n + 1 AS n, @t AS t, @d AS d, cf, @f AS f FROM t WHERE _key = @k",
    parameters: { k: Buffer.from("r1"), n: 41n, t: new PreciseDate("2024-03-15T10:30:45.123456Z"), d: new BigtableDate(2024, 2, 29), f: 0.5 },
  });
  assert.deepEqual(metadata.columns.map((t) => t.type), ["bytes", "bytes", "int64", "timestamp", "date", "map", "float64"]);
  assert.deepEqual(metadata.get("n"), SqlTypes.Int64());
  assert.equal(rows.length, 1);
  const row = rows[0];
  assert.ok(row instanceof QueryResultRow);
  assert.deepEqual(Buffer.from(row.get("_key")), Buffer.from("r1"));
  assert.equal(row.get("n"), 42n);
  assert.equal(row.get(2), 42n);
  assert.ok(row.get("t") instanceof PreciseDate);
  assert.equal(row.get("t").toISOString(), "2024-03-15T10:30:45.123456Z");
  assert.equal(row.get("t").getMicroseconds(), 456);
  assert.deepEqual(row.get("d"), new BigtableDate(2024, 2, 29));
  assert.ok(row.get("cf") instanceof EncodedKeyMap);
  assert.deepEqual(Buffer.from(row.get("cf").get(Buffer.from("q"))), Buffer.from("v1"));
  assert.equal(row.get("f"), 0.5);
  assert.throws(() => row.get("nope"), /Unknown field name/);
});

test("prepareStatement gives the columns; executeQuery runs the statement with its declared parameters", async () => {
  const instance = await instanceWithRows();
  const [statement] = await instance.prepareStatement({ query: "SELECT COUNT(*) AS c, ARRAY_LENGTH(@a) AS l FROM t WHERE _key >= @k", parameterTypes: { k: SqlTypes.String(), a: SqlTypes.Array(SqlTypes.Int64()) } });
  assert.ok(statement instanceof PreparedStatement);
  assert.deepEqual(statement.metadata.columns, [SqlTypes.Int64(), SqlTypes.Int64()]);
  const [rows] = await instance.executeQuery({ preparedStatement: statement, parameters: { k: "r2", a: [1n, null, 3n] } });
  assert.deepEqual(rows.map((r) => [r.get("c"), r.get("l")]), [[1n, 3n]]);
  await assert.rejects(instance.executeQuery({ preparedStatement: statement, parameters: { k: "r2" } }), (e) => e instanceof BigtableError && e.code === Status.INVALID_ARGUMENT && /@a/.test(e.message));
  await assert.rejects(instance.executeQuery({ preparedStatement: statement, parameters: { k: "r2", a: [], x: 1 } }), (e) => e.code === Status.INVALID_ARGUMENT && /@x/.test(e.message));
  // A callback works too, as on every call of the client.
  await new Promise((resolve) => instance.executeQuery({ query: "SELECT 1 AS one" }, (err, r) => {
    assert.equal(err, null);
    assert.equal(r[0].get("one"), 1n);
    resolve();
  }));
});

test("errors are BigtableErrors with the engine's codes; JavaScript shapes are checked as the client checks them", async () => {
  const instance = await instanceWithRows();
  const code = (status) => (e) => e instanceof BigtableError && e.status === status && e.code === Status[status];
  await assert.rejects(instance.executeQuery({ query: "SELEC 1" }), code("INVALID_ARGUMENT"));
  await assert.rejects(instance.executeQuery({ query: "SELECT * FROM missing" }), code("NOT_FOUND"));
  await assert.rejects(instance.prepareStatement({ query: "SELECT * FROM missing" }), code("NOT_FOUND"));
  await assert.rejects(instance.executeQuery({ query: "SELECT 1 / 0 AS x" }), code("OUT_OF_RANGE"));
  // INT64 takes a bigint (a number would lose digits), TIMESTAMP a PreciseDate, as in the client.
  await assert.rejects(instance.executeQuery({ query: "SELECT @n", parameters: { n: 1 }, parameterTypes: { n: SqlTypes.Int64() } }), /bigint/);
  await assert.rejects(instance.executeQuery({ query: "SELECT @t", parameters: { t: new Date() }, parameterTypes: { t: SqlTypes.Timestamp() } }), /PreciseDate/);
  await assert.rejects(instance.executeQuery({ query: "SELECT @a", parameters: { a: [1n] } }), /parameterTypes/);
  // The range of INT64 is the engine's to check.
  await assert.rejects(instance.executeQuery({ query: "SELECT @n", parameters: { n: 1n << 63n } }), code("INVALID_ARGUMENT"));
});

test("PreciseDate keeps nanoseconds", () => {
  const d = new PreciseDate(1_700_000_000_123_456_789n);
  assert.equal(d.getFullTime(), 1_700_000_000_123_456_789n);
  assert.equal(d.getMicroseconds(), 456);
  assert.equal(d.getNanoseconds(), 789);
  assert.deepEqual(d.toStruct(), { seconds: 1_700_000_000, nanos: 123_456_789 });
  assert.equal(d.toISOString(), "2023-11-14T22:13:20.123456789Z");
  assert.equal(new PreciseDate(-1n).toISOString(), "1969-12-31T23:59:59.999999999Z");
});

const be64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(n)); return b; };

async function instanceWithNumbers(count) {
  const instance = new Bigtable({ projectId: `sql${n++}`, clockMicros: 1_700_000_000_000_000 }).instance("i");
  const [table] = await instance.createTable("nums", { families: ["cf"] });
  await table.insert(Array.from({ length: count }, (_, i) => ({ key: `k${String(i).padStart(4, "0")}`, data: { cf: { n: { value: be64(i), timestamp: 1000 } } } })));
  return instance;
}

test("createExecuteQueryStream is a Readable of QueryResultRows with getMetadata, as the client's", async () => {
  const instance = await instanceWithNumbers(5);
  const [statement] = await instance.prepareStatement({ query: "SELECT _key, TO_INT64(cf['n']) * @m AS x FROM nums WHERE _key >= @from", parameterTypes: { m: SqlTypes.Int64(), from: SqlTypes.String() } });
  const stream = instance.createExecuteQueryStream({ preparedStatement: statement, parameters: { m: 10n, from: "k0002" } });
  assert.ok(stream instanceof Readable, "in Node, a real stream.Readable");
  assert.equal(stream.getMetadata(), null, "no metadata before the query has started");
  const got = [];
  await new Promise((resolve, reject) => {
    stream.on("data", (row) => {
      assert.ok(row instanceof QueryResultRow);
      assert.deepEqual(stream.getMetadata().columns, [SqlTypes.Bytes(), SqlTypes.Int64()]);
      got.push([Buffer.from(row.get("_key")).toString(), row.get("x")]);
    });
    stream.on("error", reject);
    stream.on("end", resolve);
  });
  assert.deepEqual(got, [["k0002", 20n], ["k0003", 30n], ["k0004", 40n]]);
  // for await, and the query form with inferred parameter types.
  const keys = [];
  for await (const row of instance.createExecuteQueryStream({ query: "SELECT _key AS k FROM nums WHERE _key < @to", parameters: { to: "k0002" } })) keys.push(Buffer.from(row.get("k")).toString());
  assert.deepEqual(keys, ["k0000", "k0001"]);
  // executeQuery takes the statement itself too, as the client does.
  const [rows] = await instance.executeQuery(await instance.prepareStatement({ query: "SELECT COUNT(*) AS c FROM nums" }).then(([s]) => s));
  assert.equal(rows[0].get("c"), 5n);
});

test("createExecuteQueryStream streams: rows before a run-time error arrive before the error", async () => {
  const instance = await instanceWithNumbers(300);
  // DIV by zero at the row whose n is 250: the whole-result executeQuery fails outright...
  const sql = "SELECT DIV(10, TO_INT64(cf['n']) - 250) AS q FROM nums";
  await assert.rejects(instance.executeQuery({ query: sql }), (e) => e instanceof BigtableError && e.status === "OUT_OF_RANGE");
  // ...while the stream hands over the rows read before it (whole batches of 64), then the error.
  const stream = instance.createExecuteQueryStream({ query: sql });
  let count = 0;
  const error = await new Promise((resolve) => {
    stream.on("data", () => count++);
    stream.on("error", resolve);
    stream.on("end", () => resolve(null));
  });
  assert.ok(error instanceof BigtableError && error.status === "OUT_OF_RANGE", String(error));
  assert.ok(count >= 192 && count < 250, `rows before the error: ${count}`);
  // Stopping early with end(): the rest is never produced, and end is emitted.
  const early = instance.createExecuteQueryStream({ query: "SELECT _key FROM nums" });
  let seen = 0;
  await new Promise((resolve, reject) => {
    early.on("data", () => { if (++seen === 1) early.end(); });
    early.on("error", reject);
    early.on("end", resolve);
  });
  assert.ok(seen < 300, `rows after end(): ${seen}`);
});

test("createExecuteQueryStream reports every error on the stream, not by throwing", async () => {
  const instance = await instanceWithNumbers(1);
  const code = (status) => (e) => e instanceof BigtableError && e.status === status;
  const failure = (options) => new Promise((resolve, reject) => {
    const s = instance.createExecuteQueryStream(options);
    s.on("data", () => reject(new Error("no row expected")));
    s.on("error", resolve);
    s.on("end", () => reject(new Error("error expected")));
  });
  const [statement] = await instance.prepareStatement({ query: "SELECT @a AS a", parameterTypes: { a: SqlTypes.Int64() } });
  assert.ok(code("INVALID_ARGUMENT")(await failure({ preparedStatement: statement, parameters: {} })));
  assert.ok(code("INVALID_ARGUMENT")(await failure({ query: "SELEC 1" })));
  assert.ok(code("NOT_FOUND")(await failure({ query: "SELECT * FROM missing" })));
  assert.ok(code("INVALID_ARGUMENT")(await failure({ query: "SELECT HLL_COUNT.EXTRACT(b'not a sketch')" })));
});
