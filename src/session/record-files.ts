/**
 * The session's record files that nothing reads back while the run goes on: each prompt as sent
 * (`prompts/pNN-….user.md`, `user.md`, `system.md`) and each accepted envelope (`envelope.json`,
 * `code/pNN-….envelope.json`). The trace holds the same facts; these are copies for people. Written
 * off the main thread (a file written synchronously cost a phase a millisecond on a slow disk), in
 * order per file, and all of them on disk before the run ends (`settled`). A write that fails is
 * reported once per file through `onError`, never thrown: the run's outcome does not depend on it.
 */
import { writeFile } from "node:fs";
import type { RunReporter } from "./reporter.js";
import type { SessionTrace } from "./session-trace.js";

export class RecordFiles {
  /** The last write queued for each file, so a later write of the same file lands after it. */
  private readonly queued = new Map<string, Promise<void>>();
  private readonly failed = new Set<string>();

  constructor(private readonly onError: (file: string, message: string) => void) {}

  /** A run's record files: a file that cannot be written is said to `reporter` and traced, never fatal. */
  static toldTo(trace: SessionTrace, reporter: RunReporter): RecordFiles {
    return new RecordFiles((file, message) => {
      const line = `cannot write ${file}: ${message}`;
      reporter.log(line);
      trace.event({
        type: "log",
        name: line,
        phaseId: null,
        ok: false,
        payload: { file, error: message, shown: [line] },
      });
    });
  }

  /** Queues `text` as the whole content of `file` (its folder must exist). */
  write(file: string, text: string): void {
    const before = this.queued.get(file) ?? Promise.resolve();
    const done = before.then(
      () =>
        new Promise<void>((resolve) =>
          writeFile(file, text, (error) => {
            if (error !== null && !this.failed.has(file)) {
              this.failed.add(file);
              this.onError(file, error.message);
            }
            resolve();
          }),
        ),
    );
    this.queued.set(file, done);
    void done.then(() => {
      if (this.queued.get(file) === done) this.queued.delete(file);
    });
  }

  /** Resolves once every write queued so far is on disk (or reported). Never rejects. */
  async settled(): Promise<void> {
    while (this.queued.size > 0) await Promise.all([...this.queued.values()]);
  }
}
