/**
 * What the demo's scripted agents write, through pi's real `write` tool: the plan, a first build with
 * a bug the tests catch, the fix, and the write-up.
 */

/** The engineer's request the demo runs `simple-sdlc` on. */
export const DEMO_REQUEST =
  "Add slugify(title) in src/slugify.js: lowercase ASCII words joined by single dashes, with no dash " +
  "at either end (slugify('  Hello, World! ') is 'hello-world'). Cover it with node --test tests.";

/** The plan file the planner writes (committed by `commit-plan`). */
export const SPEC_PATH = "specs/slugify.md";
export const SPEC = `# Plan: slugify

## Goal

\`slugify(title)\` turns a title into a URL slug.

## Behaviour

1. Lower-case the title.
2. Every run of characters other than \`a-z\` and \`0-9\` becomes one dash.
3. No dash at the start or the end: \`slugify("  Hello, World! ")\` is \`"hello-world"\`.

## Files

- \`src/slugify.js\`: exports \`slugify\`.
- \`test/slugify.test.js\`: one test per rule above, run by \`node --test\`.
`;

/** Where the builder puts `slugify`. */
export const CODE_PATH = "src/slugify.js";
/** The first build: rule 3 is missing, so the edge test fails. */
export const BUGGY_CODE = `/** Turns a title into a URL slug: lowercase words joined by single dashes. */
export function slugify(title) {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}
`;
/** The fix, written after the failing test output reaches the builder. */
export const FIXED_CODE = `/** Turns a title into a URL slug: lowercase words joined by single dashes, none at either end. */
export function slugify(title) {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
`;

/** The builder's tests: the second one catches the first build's bug. */
export const TEST_PATH = "test/slugify.test.js";
export const TESTS = `import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "../src/slugify.js";

test("slugify joins lowercase words with single dashes", () => {
  assert.equal(slugify("Super Simple   Software Factory"), "super-simple-software-factory");
});

test("slugify leaves no dash at either end", () => {
  assert.equal(slugify("  Hello, World! "), "hello-world");
});
`;

/**
 * A line of the failing run's output that only the buggy build produces. The fix step matches it, so
 * the fix is written only once the failing output tail has reached the builder's prompt.
 */
export const FAILURE_MARK = "'-hello-world-'";

/** The documenter's write-up (committed by `commit-docs`). */
export const DOC_PATH = "docs/slugify.md";
export const DOC = `# slugify

\`slugify(title)\` (in \`src/slugify.js\`) turns a title into a URL slug.

\`\`\`js
import { slugify } from "./src/slugify.js";

slugify("Super Simple   Software Factory"); // "super-simple-software-factory"
slugify("  Hello, World! "); // "hello-world"
\`\`\`

- Letters are lower-cased; only \`a-z\` and \`0-9\` are kept.
- Every other run of characters becomes one dash.
- There is never a dash at the start or the end.

Tests: \`test/slugify.test.js\` (\`npm test\`).
`;

/** The three commit subjects, in order: the planner's, the builder's and the documenter's. */
export const DEMO_COMMITS = {
  plan: "Plan slugify for URL-safe titles",
  code: "Add slugify with tests",
  docs: "Document slugify",
} as const;
