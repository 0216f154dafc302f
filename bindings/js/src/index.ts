// The package's types (both entries export exactly this API, plus `platform`).
export * from "./api.js";
/** Where this build runs. */
export declare const platform: "node" | "browser";
