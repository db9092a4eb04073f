import path from "node:path";
import { expect, it } from "vitest";
import { openTraceDb } from "../../src/trace/database.js";
import { type BatchAnswer, WriterThread } from "../../src/trace/writer-thread.js";
import { useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("writer-thread-faults");

it("a fault in the thread's own code is answered as fatal (its batches come back), never a crash", () => {
  const file = path.join(tempDir(), "sssf.db");
  openTraceDb(file).close();
  const answers: BatchAnswer[] = [];
  const thread = new WriterThread(file, (answer) => answers.push(answer), { busyTimeoutMs: 1000 });
  // A batch no encodeBatch makes: reading its runs throws inside the thread, outside any statement.
  thread.post({ count: 1, runs: null, values: [] } as never);
  thread.waitFor(() => answers.length > 0);
  expect(answers).toHaveLength(1);
  expect(answers[0]?.kind).toBe("fatal");
  expect(answers[0]?.kind === "fatal" && answers[0].error.message).toMatch(/runs|null|iterable/i);
  // Nothing more is delivered for it; the thread still closes.
  thread.close();
  expect(answers).toHaveLength(1);
});
