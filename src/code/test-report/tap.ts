import { Parser, type Result } from "tap-parser";
import { failureMessage, type TestCase, type TestReportResult, testCase, unreadable } from "./test-case.js";

/** Subtests nested deeper than this are not followed. */
const MAX_DEPTH = 64;

function messageOf(result: Result): string | null {
  const diag = (result.diag ?? null) as Record<string, unknown> | null;
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return failureMessage(text(diag?.error) ?? text(diag?.message) ?? text(diag?.stack));
}

interface Level {
  /** Failures reported inside the subtest a test point closes. */
  childFailures: number;
  /** True between a child parser's start and the test point closing it. */
  closing: boolean;
}

/**
 * TAP 13/14 through tap-parser: each test point is a test (names of enclosing subtests joined with
 * ` > `); a test point closing a subtest is not counted again unless it failed with no failure
 * inside (a failing hook); `# SKIP` and `# TODO` are skipped; a bail out is a failed entry.
 */
export function parseTap(input: string): TestReportResult {
  const tests: TestCase[] = [];
  let bailout: string | null = null;
  let points = 0;
  const attach = (parser: Parser, path: readonly string[], parent: Level | null) => {
    const level: Level = { childFailures: 0, closing: false };
    parser.on("child", (child: Parser) => {
      level.closing = true;
      level.childFailures = 0;
      if (path.length < MAX_DEPTH) attach(child, [...path, child.name], level);
    });
    parser.on("assert", (result: Result) => {
      points++;
      const name = [...path, result.name || `test ${result.id}`].join(" > ");
      const failed = !result.ok && !result.skip && !result.todo;
      if (failed && parent !== null) parent.childFailures++;
      if (level.closing) {
        level.closing = false;
        if (!failed || level.childFailures > 0) return;
      }
      const status = result.skip || result.todo ? "skipped" : failed ? "failed" : "passed";
      // No file: node --test gives a location on failures only, and a test's identity must not change.
      tests.push(testCase(name, null, status, failed ? messageOf(result) : null));
    });
    parser.on("bailout", (reason: string) => {
      bailout ??= typeof reason === "string" ? reason : "";
    });
  };
  const root = new Parser({ bail: false });
  attach(root, [], null);
  try {
    root.end(input);
  } catch (error) {
    return unreadable(`TAP could not be parsed: ${(error as Error).message}`);
  }
  if (bailout !== null) tests.push(testCase("Bail out!", null, "failed", failureMessage(bailout)));
  if (points === 0 && bailout === null) return unreadable("no TAP test points (ok / not ok lines) found");
  return { ok: true, tests };
}
