import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";

const src = path.join(repoRoot, "src");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Each `terminalSafe(…)` call of `text`, its arguments whole (parentheses balanced), with its line. */
function terminalSafeCalls(text: string): { line: number; call: string }[] {
  const calls: { line: number; call: string }[] = [];
  for (let at = text.indexOf("terminalSafe("); at !== -1; at = text.indexOf("terminalSafe(", at + 1)) {
    let depth = 0;
    let end = at + "terminalSafe".length;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      else if (text[end] === ")" && --depth === 0) break;
    }
    calls.push({ line: text.slice(0, at).split("\n").length, call: text.slice(at, end + 1) });
  }
  return calls;
}

describe("text made safe for the terminal", () => {
  // Without `multiline`, terminalSafe shows a newline as ␊: a message ending in "\n" printed so has no
  // line end, and the shell prompt (or the next line) runs on after a visible ␊.
  it("is never given a newline of its own to escape: such calls pass multiline or add the newline after", () => {
    const offenders = filesUnder(src).flatMap((file) =>
      terminalSafeCalls(readFileSync(file, "utf8"))
        .filter(({ call }) => call.includes("\\n") && !call.includes("multiline"))
        .map(({ line }) => `${path.relative(src, file)}:${line}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the scan finds a call that does", () => {
    const sample =
      'out(terminalSafe(`loaded (` + f(x) + ")" + "\\n"));\nterminalSafe(a, { multiline: true });';
    expect(terminalSafeCalls(sample).map(({ call }) => call.includes("\\n"))).toEqual([true, false]);
  });
});
