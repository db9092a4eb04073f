/**
 * Appends an agent's stdout lines to its `raw_output.jsonl`: what arrives while a write is under way is
 * joined into the next one, so 100k lines cost a few batched writes instead of one syscall each. Plain
 * `fs.write` calls on one descriptor, one at a time (Node's write streams cost a start several
 * milliseconds to load, and a flood more per write).
 */

import { close, mkdirSync, openSync, write } from "node:fs";
import { dirname } from "node:path";
import { redactSecrets } from "../../util/secrets/redact.js";

/** Bytes queued past which the reader is asked to pause (`backlogged`). */
export const RAW_OUTPUT_HIGH_WATER_BYTES = 64 * 1024;

/** An append-only sink for stdout lines. */
export interface RawOutputWriter {
  /** Queues lines (without newlines) for appending, each redacted (`redactSecrets`) as a whole line. */
  write(lines: string[]): void;
  /**
   * When the disk is behind (more than `RAW_OUTPUT_HIGH_WATER_BYTES` queued), calls `resume` once it
   * caught up and returns true: the reader should pause until then. Returns false when nothing is
   * queued up.
   */
  backlogged(resume: () => void): boolean;
  /** Resolves once every queued line is written and the file is closed. Never rejects. */
  close(): Promise<void>;
}

const NOTHING: RawOutputWriter = { write() {}, backlogged: () => false, close: async () => {} };

/**
 * Opens `path` for appending (creating parent folders). A file that cannot be written is reported once
 * through `onError` and the lines are dropped: losing the raw copy must not fail the agent call.
 * Never throws.
 */
export function createRawOutputWriter(path: string, onError: (message: string) => void): RawOutputWriter {
  let failed = false;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    onError(`cannot write raw output ${path}: ${error instanceof Error ? error.message : String(error)}`);
  };
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, "a");
  } catch (error) {
    fail(error);
    return NOTHING;
  }
  let queued: Buffer[] = [];
  let queuedBytes = 0;
  let writing = false;
  let closed = false;
  const waiting: (() => void)[] = [];
  let closing: (() => void) | null = null;

  const idle = () => {
    if (queuedBytes <= RAW_OUTPUT_HIGH_WATER_BYTES) for (const resume of waiting.splice(0)) resume();
    if (!writing && queued.length === 0 && closing !== null) {
      const done = closing;
      closing = null;
      close(fd, (error) => {
        if (error) fail(error);
        done();
      });
    }
  };
  /** Writes `bytes` whole (a short write goes on from where it stopped), then what queued meanwhile. */
  const writeOut = (bytes: Buffer, from: number) => {
    write(fd, bytes, from, bytes.length - from, null, (error, written) => {
      if (error) {
        fail(error);
        queued = [];
        queuedBytes = 0;
      } else if (from + written < bytes.length) {
        writeOut(bytes, from + written);
        return;
      } else queuedBytes -= bytes.length;
      writing = false;
      flush();
    });
  };
  const flush = () => {
    if (writing || failed || queued.length === 0) return idle();
    const bytes = queued.length === 1 ? (queued[0] as Buffer) : Buffer.concat(queued);
    queued = [];
    writing = true;
    writeOut(bytes, 0);
  };

  return {
    write(lines) {
      if (failed || closed || lines.length === 0) return;
      // Whole lines only (the splitter never splits one across writes), so no secret is split between two
      // redactions. A capped line (over `LINE_HEAD_BYTES + LINE_TAIL_BYTES`) arrives as its head, the
      // marker and its tail, and is written and redacted in that form.
      // Encoded at once, as a write stream does: the text (a capped line's 33 MiB) is garbage from here.
      const bytes = Buffer.from(`${lines.map(redactSecrets).join("\n")}\n`);
      queued.push(bytes);
      queuedBytes += bytes.length;
      flush();
    },
    backlogged(resume) {
      if (failed || queuedBytes <= RAW_OUTPUT_HIGH_WATER_BYTES) return false;
      waiting.push(resume);
      return true;
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return new Promise<void>((resolve) => {
        closing = resolve;
        flush();
      });
    },
  };
}
