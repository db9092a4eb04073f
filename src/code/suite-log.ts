/**
 * A quality suite's whole output streamed to a file while it runs: redacted (`redactSecrets`) in
 * blocks of whole lines, so a secret is never split between two redactions unless one line outgrows a
 * block, and bounded: past the cap the rest is dropped and a marker says how much, followed by the
 * output's tail, so the end a failing suite prints last is always in the file.
 */

import { createWriteStream, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { finished } from "node:stream/promises";
import { redactSecrets } from "../util/secrets/redact.js";

/** Default bound of a suite's log file. */
export const SUITE_LOG_CAP_BYTES = 64 * 1024 * 1024;

/** Bytes of text held before a block of whole lines is redacted and written. */
const BLOCK_BYTES = 64 * 1024;
/** A line longer than this is written in pieces (cut at its last whitespace when it has one). */
const MAX_PENDING_BYTES = 1024 * 1024;

/** A suite's log being written. */
export interface SuiteLog {
  /** The file the log ends up in. */
  readonly path: string;
  /** Queues raw output bytes (stdout and stderr as they arrive). */
  push(chunk: Buffer): void;
  /**
   * Writes what is pending plus `trailer` lines (why the run ended, the tail after a cut), closes the
   * file and moves it into place. Resolves to the path, or null when the file could not be written.
   * Never rejects.
   */
  close(tail: string, trailer: readonly string[]): Promise<string | null>;
}

/** Options of {@link openSuiteLog}. */
export interface SuiteLogOptions {
  /** Largest number of output bytes kept (default 64 MiB); the rest is dropped with a marker. */
  capBytes?: number;
}

/**
 * Opens `file` (creating its folder) for a suite's log. It is written under a temporary name beside
 * it and renamed on close, so a reader never sees half of it and two writers never interleave. A file
 * that cannot be written makes the log a no-op whose `close` resolves to null: losing the log must
 * not fail the suite. Never throws.
 */
export function openSuiteLog(file: string, options: SuiteLogOptions = {}): SuiteLog {
  const cap = Math.max(0, Math.floor(options.capBytes ?? SUITE_LOG_CAP_BYTES));
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  let failed = false;
  let stream: ReturnType<typeof createWriteStream> | null = null;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    stream = createWriteStream(temporary);
    stream.on("error", () => {
      failed = true;
    });
  } catch {
    failed = true;
  }
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let kept = 0;
  let dropped = 0;
  let atLineStart = true;

  const write = (text: string) => {
    if (failed || stream === null || text === "") return;
    stream.write(redactSecrets(text));
    atLineStart = text.endsWith("\n");
  };
  const flush = (all: boolean) => {
    if (all) {
      write(pending);
      pending = "";
      return;
    }
    let cut = pending.lastIndexOf("\n") + 1;
    if (cut === 0 && pending.length >= MAX_PENDING_BYTES) {
      const space = pending.search(/\s\S*$/);
      cut = space > 0 ? space + 1 : pending.length;
    }
    if (cut === 0) return;
    write(pending.slice(0, cut));
    pending = pending.slice(cut);
  };

  return {
    path: file,
    push(chunk) {
      if (failed) return;
      const room = cap - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const taken = chunk.length > room ? chunk.subarray(0, room) : chunk;
      dropped += chunk.length - taken.length;
      kept += taken.length;
      pending += decoder.decode(taken, { stream: true });
      if (pending.length >= BLOCK_BYTES) flush(false);
    },
    async close(tail, trailer) {
      if (stream === null) return null;
      pending += decoder.decode();
      flush(true);
      const lines: string[] = [];
      if (dropped > 0) {
        lines.push(
          `[sssf] log cut at ${cap} bytes: ${dropped} more bytes of output not kept; the output's tail follows`,
          tail,
        );
      }
      lines.push(...trailer);
      if (lines.length > 0) write(`${atLineStart ? "" : "\n"}${lines.join("\n")}\n`);
      stream.end();
      try {
        await finished(stream);
      } catch {
        failed = true;
      }
      try {
        if (failed) throw new Error("not written");
        renameSync(temporary, file);
        return file;
      } catch {
        rmSync(temporary, { force: true });
        return null;
      }
    },
  };
}
