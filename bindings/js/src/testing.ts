// Test helpers for Node (`sparsetable/testing`): start a real sparsetable-server for a test
// run, as the pytest fixture does for Python, so a suite that talks to Bigtable through
// Google's Node client (`@google-cloud/bigtable`) gets an emulator of its own.
// Invariants: the server listens on 127.0.0.1 on a port the OS picked (no clash between
// parallel runs); `stop()` kills it, waits for it to exit and puts BIGTABLE_EMULATOR_HOST back
// as it was; a server that fails to start is an error naming the binary and quoting what it
// printed, never a hang (the wait is bounded).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import process from "node:process";

/** How to start the server. */
export interface EmulatorOptions {
  /** The `sparsetable-server` binary: this, else `$SPARSETABLE_SERVER_BIN`, else the one on `PATH`. */
  binary?: string;
  /** Keep data in this directory (`--data-dir`); in memory without it. */
  dataDir?: string;
  /** Freeze the server's clock at this many microseconds (`--clock-micros`), for exact tests. */
  clockMicros?: number;
  /** More command-line flags (`sparsetable-server --help` lists them). */
  args?: string[];
  /** Set `BIGTABLE_EMULATOR_HOST` for this process while the server runs (default true). */
  setEnv?: boolean;
  /** How long to wait for the server to listen, in milliseconds (default 30,000). */
  startupMs?: number;
}

/** A running server. */
export interface Emulator {
  /** `host:port`, what `BIGTABLE_EMULATOR_HOST` takes. */
  address: string;
  host: string;
  port: number;
  /** Stops the server and restores `BIGTABLE_EMULATOR_HOST`. */
  stop(): Promise<void>;
}

/** The line the server prints once it listens. */
const READY = /^export BIGTABLE_EMULATOR_HOST=(\S+)$/m;

/** Starts `sparsetable-server` on a free port of 127.0.0.1 and resolves once it listens. */
export function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const binary = options.binary ?? process.env.SPARSETABLE_SERVER_BIN ?? "sparsetable-server";
  const args = ["--host", "127.0.0.1", "--port", "0"];
  if (options.dataDir !== undefined) args.push("--data-dir", options.dataDir);
  if (options.clockMicros !== undefined) {
    if (!Number.isSafeInteger(options.clockMicros)) {
      return Promise.reject(new TypeError(`clockMicros must be an integer, got ${String(options.clockMicros)}`));
    }
    args.push("--clock-micros", String(options.clockMicros));
  }
  args.push(...(options.args ?? []));
  const startupMs = options.startupMs ?? 30_000;
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      reject(new Error(`cannot start ${binary}: ${(e as Error).message}`));
      return;
    }
    let stdout = "";
    let stderr = "";
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      const printed = (stderr || stdout).trim().split("\n").slice(-20).join("\n");
      reject(new Error(`${binary} ${why}${printed ? `; it printed:\n${printed}` : ""}`));
    };
    const timer = setTimeout(() => fail(`did not listen within ${startupMs} ms`), startupMs);
    child.on("error", (e) => fail(`could not be started (${e.message}); set SPARSETABLE_SERVER_BIN or pass { binary }`));
    child.on("exit", (code, signal) => fail(`exited before it listened (${signal ?? `status ${code}`})`));
    child.stderr?.setEncoding("utf8").on("data", (d) => {
      stderr += String(d);
    });
    child.stdout?.setEncoding("utf8").on("data", (d) => {
      stdout += String(d);
      const m = READY.exec(stdout);
      if (!m || settled) return;
      settled = true;
      clearTimeout(timer);
      const address = m[1];
      const colon = address.lastIndexOf(":");
      const previous = process.env.BIGTABLE_EMULATOR_HOST;
      const setEnv = options.setEnv ?? true;
      if (setEnv) process.env.BIGTABLE_EMULATOR_HOST = address;
      // The server must not keep the test process alive (a run that never calls stop() still
      // ends), nor outlive it: unreferenced, and killed when the process exits.
      child.unref();
      child.stdout?.unref?.();
      child.stderr?.unref?.();
      process.on("exit", () => child.kill("SIGKILL"));
      let stopping: Promise<void> | undefined;
      resolve({
        address,
        host: address.slice(0, colon),
        port: Number(address.slice(colon + 1)),
        stop() {
          stopping ??= new Promise<void>((done) => {
            if (setEnv && process.env.BIGTABLE_EMULATOR_HOST === address) {
              if (previous === undefined) delete process.env.BIGTABLE_EMULATOR_HOST;
              else process.env.BIGTABLE_EMULATOR_HOST = previous;
            }
            if (child.exitCode !== null) return done();
            // Held again while it stops, so the wait keeps the process alive.
            child.ref();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          });
          return stopping;
        },
      });
    });
  });
}
