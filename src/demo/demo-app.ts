/**
 * The small Node app `sssf demo` starts from: two string helpers, a `node --test` suite, and no
 * dependencies, so the demo's `test` suite is the real Node test runner and needs no install.
 */

/** Repo-relative path → file content of the app before the run. */
export const DEMO_APP_FILES: Readonly<Record<string, string>> = {
  "package.json": `${JSON.stringify(
    {
      name: "sssf-demo-app",
      version: "1.0.0",
      private: true,
      description: "A tiny app for sssf demo to change",
      type: "module",
      scripts: { test: "node --test" },
    },
    null,
    2,
  )}\n`,
  "README.md": `# sssf demo app

A scratch repository created by \`sssf demo\`: string helpers in \`src/\`, tests in \`test/\`.

Run the tests with \`npm test\` (Node's built-in test runner, no dependencies).
`,
  "src/strings.js": `/** Upper-cases the first letter of \`word\`. */
export function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The number of whitespace-separated words in \`text\`. */
export function wordCount(text) {
  const words = text.trim().split(/\\s+/);
  return words[0] === "" ? 0 : words.length;
}
`,
  "test/strings.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { capitalize, wordCount } from "../src/strings.js";

test("capitalize upper-cases the first letter", () => {
  assert.equal(capitalize("factory"), "Factory");
});

test("wordCount counts words and ignores extra spaces", () => {
  assert.equal(wordCount("  super simple  software factory "), 4);
  assert.equal(wordCount("   "), 0);
});
`,
};
