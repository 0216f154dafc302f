// The few Node APIs the Node entry uses, declared here so the package builds without
// @types/node.
declare module "node:fs" {
  export function readFileSync(path: URL | string): Uint8Array;
  export function mkdirSync(path: string, options: { recursive: boolean }): void;
  export function openSync(path: string, flags: string): number;
  export function closeSync(fd: number): void;
  export function writeSync(fd: number, data: Uint8Array, offset: number, length: number): number;
  export function readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  export function fsyncSync(fd: number): void;
  export function statSync(path: string): { size: number };
  export function renameSync(from: string, to: string): void;
  export function unlinkSync(path: string): void;
  export function readdirSync(path: string): string[];
  export function readdirSync(path: string, options: { withFileTypes: true }): { name: string; isFile(): boolean }[];
  export function ftruncateSync(fd: number, len: number): void;
  export function writeFileSync(path: string, data: string, options: { flag: string }): void;
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function realpathSync(path: string): string;
  export function existsSync(path: string): boolean;
}

// The process, for the directory lock's pid checks.
declare module "node:process" {
  const process: {
    pid: number;
    kill(pid: number, signal: number): boolean;
    env: Record<string, string | undefined>;
    on(event: "exit", listener: () => void): void;
  };
  export default process;
}

declare module "node:stream" {
  export class Readable {
    constructor(options: { objectMode: boolean; highWaterMark?: number });
    push(chunk: unknown): boolean;
    destroy(error?: Error): this;
  }
}

// The child process the testing helper starts (sparsetable-server).
declare module "node:child_process" {
  interface Readable {
    on(event: "data", listener: (chunk: Uint8Array | string) => void): this;
    setEncoding(encoding: "utf8"): this;
    unref?(): void;
  }
  export interface ChildProcess {
    pid?: number;
    exitCode: number | null;
    stdout: Readable | null;
    stderr: Readable | null;
    kill(signal?: string): boolean;
    unref(): void;
    ref(): void;
    on(event: "exit", listener: (code: number | null, signal: string | null) => void): this;
    on(event: "error", listener: (error: Error) => void): this;
    once(event: "exit", listener: (code: number | null, signal: string | null) => void): this;
  }
  export function spawn(command: string, args: string[], options: { stdio: ["ignore", "pipe", "pipe"]; env?: Record<string, string | undefined> }): ChildProcess;
}
