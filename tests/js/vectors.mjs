// Loading the shared vectors for the JavaScript runners (the wasm build's tests under
// wasm/test/ and the npm package's under bindings/js/test/): the data vectors
// (tests/vectors/*.json) and the SQL vectors (tests/vectors/sql/*.json, read so that no digit
// of an INT64 is lost). Node only (it reads files); what a runner does with a vector in any
// JavaScript realm, browsers included, is in replay.mjs beside this file.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository this file is in. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Every data vector, in file order, each with the `file` it came from. */
export function loadDataVectors(root = ROOT) {
  const dir = path.join(root, "tests", "vectors");
  const vectors = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    for (const v of JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")).vectors) vectors.push({ file, ...v });
  }
  return vectors;
}

/** JSON text with every integer literal outside a double's exact range written as a string of
 * its digits (INT64 values are read with BigInt, floats with Number), so JSON.parse loses no
 * digit of an INT64 value. Strings are skipped as they are scanned. */
export function exactIntegers(text) {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
      const lit = m[0];
      out += !m[1] && !m[2] && !Number.isSafeInteger(Number(lit)) ? `"${lit}"` : lit;
      i += lit.length;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** Every SQL vector (tests/vectors/sql/*.json), in file order, integers exact (exactIntegers). */
export function loadSqlVectors(root = ROOT) {
  const dir = path.join(root, "tests", "vectors", "sql");
  return fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
    .flatMap((f) => JSON.parse(exactIntegers(fs.readFileSync(path.join(dir, f), "utf8"))).vectors);
}


/** Op-level bytes, one definition for every runner (replay.mjs). */
export { opBytes } from "./replay.mjs";
