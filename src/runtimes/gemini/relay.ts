/**
 * A stdout relay for gemini-cli. Node makes a piped stdout non-blocking, and gemini ends with
 * `process.exit()`, which drops whatever is still queued: after a large write (the echo of a 1 MB
 * prompt) the rest of the stream, result included, is lost. A regular file is written synchronously,
 * so the relay runs gemini with its stdout on a file in the session dir and copies the file to its own
 * stdout as it grows, flushing before it exits with gemini's code (or signal).
 */

import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The relay program (plain ESM JavaScript, so it runs from source and from dist alike). */
export const GEMINI_RELAY_SCRIPT = `// Written by sssf: runs gemini with stdout on a file and relays the file (see gemini-relay.ts).
import { spawn } from "node:child_process";
import { closeSync, openSync, readSync } from "node:fs";

const [outFile, program, ...args] = process.argv.slice(2);
const writer = openSync(outFile, "w");
const reader = openSync(outFile, "r");
const child = spawn(program, args, { stdio: ["inherit", writer, "inherit"] });
closeSync(writer);
const chunk = Buffer.alloc(1 << 16);
let offset = 0;
const pump = () => {
  for (;;) {
    const read = readSync(reader, chunk, 0, chunk.length, offset);
    if (read <= 0) return;
    offset += read;
    process.stdout.write(Buffer.from(chunk.subarray(0, read)));
  }
};
const timer = setInterval(pump, 50);
const finish = (exit) => {
  clearInterval(timer);
  pump();
  process.stdout.write("", exit);
};
child.on("error", (error) =>
  finish(() => {
    process.stderr.write("sssf gemini relay: cannot start " + program + ": " + error.message + "\\n");
    process.exit(127);
  }),
);
child.on("exit", (code, signal) =>
  finish(() => {
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  }),
);
`;

/** The relay's command line and the files it uses. */
export interface GeminiRelay {
  command: string[];
  /** Removes the stdout copy (its lines are in raw_output.jsonl already). */
  cleanup(): void;
}

/**
 * Writes the relay script into `sessionDir` and wraps `argv` (the gemini command line) in it, run by
 * the Node that runs sssf. Throws when the script cannot be written.
 */
export function geminiRelay(sessionDir: string, argv: string[]): GeminiRelay {
  const script = path.join(sessionDir, "gemini-relay.mjs");
  const stdoutFile = path.join(sessionDir, "gemini-stdout.jsonl");
  writeFileSync(script, GEMINI_RELAY_SCRIPT);
  return {
    command: [process.execPath, script, stdoutFile, ...argv],
    cleanup: () => rmSync(stdoutFile, { force: true }),
  };
}
