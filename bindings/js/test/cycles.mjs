// Fails (exit 1) when the package's TypeScript sources (src/*.ts, the generated src/wasm/ left
// out) import each other in a circle, type-only imports included: a circle of types is still
// a circle of concepts, and the cure is the same (the shared types move to a module both sides
// import). Prints each circle as `a.ts -> b.ts -> a.ts`. Cheap: a regex over a few dozen
// files, then Tarjan's strongly connected components. `node test/cycles.mjs [srcDir]`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const src = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src"));

/** Every relative module a source names: `import ... from`, `export ... from`, `import("...")`
 * (types written as `import("./x.js").T` too). Comments are dropped first. */
export function importsOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const out = new Set();
  for (const m of code.matchAll(/\b(?:import|export)\b[^;"'`]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g)) out.add(m[1]);
  for (const m of code.matchAll(/\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) out.add(m[1]);
  for (const m of code.matchAll(/^\s*import\s*["'](\.{1,2}\/[^"']+)["']/gm)) out.add(m[1]);
  return [...out];
}

/** The graph of src: file -> files it imports (inside src, outside src/wasm). */
export function graph(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".ts")).sort();
  const edges = new Map();
  for (const f of files) {
    const targets = new Set();
    for (const spec of importsOf(fs.readFileSync(path.join(dir, f), "utf8"))) {
      const target = path.normalize(spec).replace(/\.js$/, ".ts");
      if (target.startsWith("wasm/") || target.startsWith("..")) continue;
      const name = files.includes(target) ? target : files.find((x) => x === target.replace(/\.ts$/, ".d.ts"));
      if (name === undefined) throw new Error(`${f}: imports ${spec}, which is not in ${dir}`);
      targets.add(name);
    }
    edges.set(f, [...targets].sort());
  }
  return edges;
}

/** Strongly connected components with more than one file (or a file importing itself). */
export function cycles(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      for (let w = stack.pop(); ; w = stack.pop()) {
        on.delete(w);
        scc.push(w);
        if (w === v) break;
      }
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** One circle through the component, as a path `a -> b -> ... -> a`. */
function circle(edges, scc) {
  const set = new Set(scc);
  const start = scc[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges.get(v)) {
      if (!set.has(w)) continue;
      if (w === start) {
        const p = [start];
        for (let x = v; x !== start; x = prev.get(x)) p.splice(1, 0, x);
        return [...p, start].join(" -> ");
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return scc.join(", ");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const edges = graph(src);
  const found = cycles(edges);
  for (const scc of found) console.log(`import circle (${scc.length} files: ${scc.join(", ")}): ${circle(edges, scc)}`);
  console.log(found.length ? `FAILED: ${found.length} import circle(s) in ${src}` : `ok: no import circle among ${edges.size} files in ${src}`);
  process.exit(found.length ? 1 : 0);
}
