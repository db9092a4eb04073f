/**
 * Appends an agent's stdout lines to its `raw_output.jsonl` through one write stream, so 100k lines
 * cost a few batched writes instead of one syscall each.
 */

import { createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { finished } from "node:stream/promises";
import { redactSecrets } from "../../util/secrets/redact.js";

/** An append-only sink for stdout lines. */
export interface RawOutputWriter {
  /** Queues lines (without newlines) for appending, each redacted (`redactSecrets`) as a whole line. */
  write(lines: string[]): void;
  /**
   * When the disk is behind (more than the stream's buffer is queued), calls `resume` once it caught
   * up and returns true: the reader should pause until then. Returns false when nothing is queued up.
   */
  backlogged(resume: () => void): boolean;
  /** Resolves once every queued line is written and the file is closed. Never rejects. */
  close(): Promise<void>;
}

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
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    fail(error);
    return { write() {}, backlogged: () => false, close: async () => {} };
  }
  const stream = createWriteStream(path, { flags: "a" });
  stream.on("error", fail);
  return {
    write(lines) {
      if (failed || lines.length === 0) return;
      // Whole lines only (the splitter never splits one across writes), so no secret is split between two
      // redactions. A capped line (over `LINE_HEAD_BYTES + LINE_TAIL_BYTES`) arrives as its head, the
      // marker and its tail, and is written and redacted in that form.
      stream.write(`${lines.map(redactSecrets).join("\n")}\n`);
    },
    backlogged(resume) {
      if (failed || !stream.writableNeedDrain) return false;
      const done = () => {
        stream.off("drain", done);
        stream.off("error", done);
        resume();
      };
      stream.on("drain", done);
      stream.on("error", done);
      return true;
    },
    async close() {
      if (!stream.destroyed) stream.end();
      try {
        await finished(stream);
      } catch (error) {
        fail(error);
      }
    },
  };
}
