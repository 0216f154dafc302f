// Runs every ```js block of the installed package's README.md (node_modules/sparsetable/
// README.md) as its own ES module inside the scratch project, so the examples work exactly
// as pasted. Prints node:test-style counts.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

const scratch = path.resolve(process.argv[2]);
const readme = fs.readFileSync(path.join(scratch, "node_modules", "sparsetable", "README.md"), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
// The repository README's JavaScript blocks marked as tested here (argv[3]: its path).
if (process.argv[3]) {
  const root = fs.readFileSync(process.argv[3], "utf8");
  const marked = [...root.matchAll(/<!-- tested by bindings\/js\/test\/readme_examples\.mjs[^>]*-->\n```js\n([\s\S]*?)```/g)];
  if (marked.length === 0) { console.log(`no marked example in ${process.argv[3]}`); process.exitCode = 1; }
  blocks.push(...marked.map((m) => m[1]));
}
let pass = 0, fail = 0;
blocks.forEach((code, i) => {
  const file = path.join(scratch, `readme_${i}.mjs`);
  fs.writeFileSync(file, code);
  try {
    execFileSync(process.execPath, [file], { cwd: scratch, stdio: "pipe" });
    pass++;
  } catch (e) {
    fail++;
    console.log(`README example ${i} failed:\n${code}\n${e.stderr}`);
  }
});
if (blocks.length === 0) { fail++; console.log("README has no ```js examples"); }
console.log(`# pass ${pass}`);
console.log(`# fail ${fail}`);
process.exit(fail ? 1 : 0);
