// The playground's generated code, compiled and run as shown. The corpus (reads, writes and
// admin operations in every language: codegen.rs's `corpus()`) is written to
// $SPARSETABLE_SNIPPETS_DIR by `cargo test -p sparsetable-web write_the_snippet_corpus`
// (scripts/suites/web.sh does both). Here:
//   - every Python snippet compiles (py_compile), every Node snippet parses (node --check);
//   - javac finds no syntax error in any Java snippet (Google's jars are not on this machine,
//     so only "cannot find symbol" / "package does not exist" errors are allowed);
//   - against the real sparsetable-server (BIGTABLE_EMULATOR_HOST), Google's Python client
//     runs the admin, write and read snippets, and Google's Node client runs its own, in
//     order, and the reads print the rows the writes wrote (the reversed read newest row
//     first). Needs $SPARSETABLE_SERVER_BIN, Google's Python client in $PYTHON and
//     @google-cloud/bigtable under $NODE_CLIENT_MODULES; the suite provides them.
// Go snippets and the Java imports are checked as text by the Rust tests in codegen.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DIR = process.env.SPARSETABLE_SNIPPETS_DIR;
const PYTHON = process.env.PYTHON || "python3";
const files = (suffix) => readdirSync(DIR).filter((f) => f.endsWith(suffix)).sort();

test("the corpus is there", () => {
  assert.ok(DIR, "set SPARSETABLE_SNIPPETS_DIR (scripts/suites/web.sh does)");
  assert.ok(files(".py").length >= 18 && files(".js").length >= 9, readdirSync(DIR).join(" "));
});

// The replication lesson's actions (web/src/lab/replication_code.rs), in every language.
const REPL = ["repl_write", "repl_increment", "repl_read", "repl_conflict", "repl_token", "repl_lag", "repl_down"];

test("the replication lesson's snippets are in the corpus, in every language", () => {
  for (const name of REPL) {
    for (const ext of [".google.py", ".sparsetable.py", ".java", ".go", ".js", ".cbt.sh"]) {
      assert.ok(files(ext).includes(name + ext), `${name}${ext} missing`);
    }
  }
  // Data operations route through the lesson's app profile in Google's clients.
  assert.match(readFileSync(join(DIR, "repl_write.google.py"), "utf8"), /app_profile_id="to-c1"/);
  assert.match(readFileSync(join(DIR, "repl_write.java"), "utf8"), /\.setAppProfileId\("to-c1"\)/);
  assert.match(readFileSync(join(DIR, "repl_write.go"), "utf8"), /AppProfile: "to-c1"/);
  assert.match(readFileSync(join(DIR, "repl_write.js"), "utf8"), /appProfileId: "to-c1"/);
});

test("every Python snippet compiles", () => {
  for (const f of files(".py")) {
    const r = spawnSync(PYTHON, ["-m", "py_compile", join(DIR, f)], { encoding: "utf8" });
    assert.equal(r.status, 0, `${f}: ${r.stderr}`);
  }
});

test("every Node.js snippet parses", () => {
  for (const f of files(".js")) {
    const r = spawnSync(process.execPath, ["--check", join(DIR, f)], { encoding: "utf8" });
    assert.equal(r.status, 0, `${f}: ${r.stderr}`);
  }
});

test("javac finds no syntax error in any Java snippet", { skip: !hasJavac() && "no javac" }, () => {
  // One javac run over all of them (each is class Example, in a directory of its own).
  const root = mkdtempSync(join(tmpdir(), "snippet-java-"));
  const paths = files(".java").map((f) => {
    const dir = join(root, f.replace(/\.java$/, ""));
    mkdirSync(dir);
    copyFileSync(join(DIR, f), join(dir, "Example.java"));
    return join(dir, "Example.java");
  });
  const r = spawnSync("javac", ["-Xmaxerrs", "10000", "-d", join(root, "out"), ...paths], { encoding: "utf8" });
  const errors = r.stderr.split("\n").filter((l) => /error:/.test(l));
  assert.ok(errors.length > 0, "javac without Google's jars must miss their packages");
  const syntax = errors.filter(
    (l) => !/error: (package \S+ does not exist|cannot find symbol|static import only from classes and interfaces|duplicate class: Example)/.test(l),
  );
  assert.deepEqual(syntax, [], r.stderr);
});

function hasJavac() {
  return spawnSync("javac", ["-version"]).status === 0;
}

/** Starts the server; resolves to {addr, stop}. */
async function startServer(bin) {
  const child = spawn(bin, ["--host", "127.0.0.1", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const addr = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = /export BIGTABLE_EMULATOR_HOST=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return { addr, stop: () => child.kill() };
}

function run(cmd, args, env, cwd) {
  const r = spawnSync(cmd, args, { encoding: "utf8", env: { ...process.env, ...env }, cwd, timeout: 60000 });
  assert.equal(r.status, 0, `${args.join(" ")}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const SERVER = process.env.SPARSETABLE_SERVER_BIN;
const NODE_MODULES = process.env.NODE_CLIENT_MODULES;

test("Google's Python and Node clients run the snippets against sparsetable-server", {
  skip: !(SERVER && NODE_MODULES) && "needs SPARSETABLE_SERVER_BIN and NODE_CLIENT_MODULES",
}, async () => {
  const { addr, stop } = await startServer(SERVER);
  try {
    const env = { BIGTABLE_EMULATOR_HOST: addr };
    const py = (f) => run(PYTHON, [join(DIR, f)], env);
    // NODE_PATH lets require() find the installed client from the corpus directory.
    const js = (f) => run(process.execPath, [join(DIR, f)], { ...env, NODE_PATH: NODE_MODULES });
    py("admin_create.google.py");
    py("write_text.google.py");
    py("write_bytes_and_deletes.google.py");
    const prefix = py("read_prefix.google.py");
    assert.match(prefix, /b'user#000001'.*b'Ada'/, prefix);
    const keys = py("read_keys.google.py");
    assert.match(keys, /user#000001[\s\S]*user#000002/, keys);
    py("read_every_filter.google.py");
    const nodePrefix = js("read_prefix.js");
    assert.match(nodePrefix, /user#000001/, nodePrefix);
    js("write_text.js");
    const reversed = js("read_reversed.js");
    const order = [...reversed.matchAll(/^(user#\d+)/gm)].map((m) => m[1]);
    assert.deepEqual(order, ["user#000002", "user#000001"], reversed);
    js("read_keys.js");
    js("read_every_filter.js");
    py("admin_gc.google.py");
    js("admin_gc.js");
    js("admin_delete.js");
    // The table is gone: Google's Python admin snippet creates it again, the Node one drops it.
    py("admin_create.google.py");
    js("write_bytes_and_deletes.js");
    py("admin_delete.google.py");
    const listed = readFileSync(join(DIR, "admin_delete.cbt.sh"), "utf8");
    assert.match(listed, /deletetable snippets/);
    // The replication lesson's data snippets, on the lesson's table (a one-cluster instance
    // routes every profile as its default one, so they run unchanged).
    const users = join(mkdtempSync(join(tmpdir(), "repl-")), "create_users.py");
    writeFileSync(users, readFileSync(join(DIR, "admin_create.google.py"), "utf8").replaceAll('"snippets"', '"users"'));
    run(PYTHON, [users], env);
    py("repl_write.google.py");
    assert.match(py("repl_read.google.py"), /Ada/);
    py("repl_increment.google.py");
    py("repl_conflict.google.py");
    js("repl_write.js");
    assert.match(js("repl_read.js"), /Ada/);
    js("repl_increment.js");
    js("repl_conflict.js");
    assert.match(py("repl_token.google.py"), /True/);
    assert.match(js("repl_token.js"), /true/);
  } finally {
    stop();
  }
});
