import { XMLParser } from "fast-xml-parser";
import { failureMessage, type TestCase, type TestReportResult, testCase, unreadable } from "./test-case.js";

/** Suites nested deeper than this are not followed (a hostile report could nest without end). */
const MAX_DEPTH = 64;

type Node = Record<string, unknown>;

/**
 * Entities: only XML's own and character references; a DOCTYPE's declarations are bounded so an
 * entity bomb cannot grow the input (a report with entity declarations is refused before parsing).
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  textNodeName: "#text",
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  processEntities: {
    enabled: true,
    maxEntitySize: 256,
    maxEntityCount: 16,
    maxExpansionDepth: 2,
    maxTotalExpansions: 1000,
    maxExpandedLength: 100_000,
  },
  // Character references (`&#10;` in pytest's message attributes) are decoded with these.
  htmlEntities: true,
  isArray: (name) => ["testsuite", "testcase", "failure", "error", "skipped"].includes(name),
});

const list = (value: unknown): Node[] =>
  Array.isArray(value) ? value.filter((v): v is Node => typeof v === "object" && v !== null) : [];

const text = (value: unknown): string | null => {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) {
    const inner = (value as Node)["#text"];
    return typeof inner === "string" ? inner : null;
  }
  return null;
};

const attr = (node: Node, name: string): string | null => {
  const value = node[name];
  return typeof value === "string" ? value : null;
};

/** A `<failure>`/`<error>` child's message attribute and body; a bare `<failure/>` is "". */
function problem(value: unknown): string | null {
  const items = Array.isArray(value) ? value : [];
  const parts: string[] = [];
  for (const item of items) {
    if (typeof item === "string") parts.push(item);
    else if (typeof item === "object" && item !== null) {
      const node = item as Node;
      const message = attr(node, "message");
      const body = text(node);
      // Most writers repeat the message at the top of the body: keep it once, first.
      if (message !== null && (body === null || !body.trimStart().startsWith(message.trim()))) {
        parts.push(message);
      }
      if (body !== null) parts.push(body);
    }
  }
  return items.length === 0 ? null : (failureMessage(...parts) ?? "");
}

function caseOf(node: Node): TestCase | null {
  const name = attr(node, "name");
  if (name === null) return null;
  // pytest, vitest and gotestsum name the test's module, file or package in classname; jest-junit
  // and some others add `file`.
  const file = attr(node, "file") ?? attr(node, "classname");
  const failed = problem(node.failure) ?? problem(node.error);
  if (failed !== null) return testCase(name, file, "failed", failed === "" ? null : failed);
  if (node.skipped !== undefined) return testCase(name, file, "skipped");
  return testCase(name, file, "passed");
}

function collect(suite: Node, depth: number, into: TestCase[]): void {
  if (depth > MAX_DEPTH) return;
  for (const node of list(suite.testcase)) {
    const found = caseOf(node);
    if (found !== null) into.push(found);
  }
  for (const inner of list(suite.testsuite)) collect(inner, depth + 1, into);
}

/**
 * JUnit XML as pytest `--junitxml`, the vitest and jest junit reporters, nextest, gotestsum and
 * surefire write it: a `<testsuites>` root or a bare `<testsuite>`, suites nested in suites;
 * `<failure>` or `<error>` = failed, `<skipped>` = skipped.
 */
export function parseJunit(input: string): TestReportResult {
  // No JUnit writer declares entities; refusing them keeps expansion out of the question.
  if (input.includes("<!ENTITY")) return unreadable("JUnit XML declares entities (<!ENTITY): not read");
  let document: Node;
  try {
    document = parser.parse(input, true) as Node;
  } catch (error) {
    return unreadable(`not well-formed JUnit XML: ${(error as Error).message}`);
  }
  const root = (document.testsuites ?? null) as Node | null;
  const suites = root !== null && typeof root === "object" ? [root] : list(document.testsuite);
  if (suites.length === 0) return unreadable("no <testsuites> or <testsuite> element in the JUnit XML");
  const tests: TestCase[] = [];
  for (const suite of suites) collect(suite, 0, tests);
  return { ok: true, tests };
}
