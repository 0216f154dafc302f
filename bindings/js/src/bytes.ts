// Bytes as the Node client takes and gives them: `Data` (a string, a number as an 8-byte
// big-endian int64, or bytes), base64 from the engine's proto3 JSON, and the plain-object
// test every converter uses. Conversions only; no Bigtable rule.

/** Bytes the client takes: a string (UTF-8), a number (8-byte big-endian int64), bytes. */
export type Data = string | number | Uint8Array;

const encoder = new TextEncoder();
export const decoder = new TextDecoder();

/** As the Node client's `Mutation.convertToBytes`: numbers become 8-byte int64s. */
export function toBytes(data: Data | undefined | null): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (typeof data === "number") {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigInt64(0, BigInt(Math.trunc(data)));
    return out;
  }
  // The client sends null, undefined and booleans as empty bytes (its conversion hands a
  // boolean to the proto encoder, which writes nothing for it); Google's delete samples
  // write `true` and read the empty value back.
  if (data === undefined || data === null || typeof data === "boolean") return new Uint8Array();
  return encoder.encode(String(data));
}

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === "function";

export function fromBase64(text: string | undefined): Uint8Array {
  if (!text) return new Uint8Array();
  if (hasBuffer) {
    const B = (globalThis as unknown as { Buffer: { from(s: string, e: string): Uint8Array } }).Buffer;
    return B.from(text, "base64");
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Standard base64 with padding, as proto3 JSON writes `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  if (hasBuffer) {
    const B = (globalThis as unknown as { Buffer: { from(b: Uint8Array): { toString(e: string): string } } }).Buffer;
    return B.from(bytes).toString("base64");
  }
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return Object.prototype.toString.call(v) === "[object Object]";
}
