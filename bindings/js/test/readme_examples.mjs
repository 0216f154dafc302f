// Runs every ```js block of the installed package's README.md (node_modules/sparsetable/
// README.md) as its own ES module inside the scratch project, so the examples work exactly
// as pasted. Prints node:test-style counts.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

const scratch = process.argv[2];
const readme = fs.readFileSync(path.join(scratch, "node_modules", "sparsetable", "README.md"), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
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
