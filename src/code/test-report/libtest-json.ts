import { z } from "zod";
import { jsonLines } from "./json-lines.js";
import { failureMessage, type TestCase, type TestReportResult, testCase, unreadable } from "./test-case.js";

/** One libtest JSON event (`cargo test -- -Z unstable-options --format json`, nextest's libtest-json). */
const Event = z.looseObject({
  type: z.string(),
  event: z.string(),
  name: z.string().optional(),
  stdout: z.string().nullish(),
  message: z.string().nullish(),
});

/**
 * libtest's JSON events: a `test` event's last ok/failed/ignored/timeout is the outcome (timeout
 * alone is still running: only `failed` counts). nextest names a test `<binary-id>$<test>`: the
 * binary becomes its file.
 */
export function parseLibtestJson(input: string): TestReportResult {
  const events = jsonLines(input, Event);
  if (events.length === 0) return unreadable("no libtest JSON events (lines with type and event) found");
  const outcome = new Map<string, TestCase>();
  for (const event of events) {
    if (event.type !== "test" || event.name === undefined) continue;
    const at = event.name.indexOf("$");
    const file = at < 0 ? null : event.name.slice(0, at);
    const name = at < 0 ? event.name : event.name.slice(at + 1);
    const key = event.name;
    if (event.event === "ok") outcome.set(key, testCase(name, file, "passed"));
    else if (event.event === "ignored") outcome.set(key, testCase(name, file, "skipped"));
    else if (event.event === "failed") {
      outcome.set(key, testCase(name, file, "failed", failureMessage(event.message, event.stdout)));
    }
  }
  const tests: TestCase[] = [...outcome.values()];
  return { ok: true, tests };
}
