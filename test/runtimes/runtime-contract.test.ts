import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUILTIN_RUNTIME_IDS } from "../../src/runtimes/builtins.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** Runtimes that run a user-given program, not an agent CLI: tested by their protocol, not the contract. */
const NOT_CLI = new Set(["exec"]);

/** The runtime id of each contract call in the test files here (the `id` the call names first). */
function contractCalls(): Map<string, string[]> {
  const calls = new Map<string, string[]>();
  const files = readdirSync(here, { recursive: true, encoding: "utf8" });
  for (const file of files.filter((name) => name.endsWith(".test.ts"))) {
    const text = readFileSync(path.join(here, file), "utf8");
    for (const match of text.matchAll(/describeRuntimeContract\(\{\s*id:\s*"([^"]+)"/g)) {
      const id = match[1] ?? "";
      calls.set(id, [...(calls.get(id) ?? []), file]);
    }
  }
  return calls;
}

describe("runtime contract coverage", () => {
  it("runs the runtime contract once for every built-in CLI runtime, and for no other id", () => {
    const calls = contractCalls();
    const cliRuntimes = BUILTIN_RUNTIME_IDS.filter((id) => !NOT_CLI.has(id));
    expect(cliRuntimes.filter((id) => !calls.has(id))).toEqual([]);
    expect([...calls.keys()].filter((id) => !cliRuntimes.includes(id))).toEqual([]);
    for (const [id, files] of calls) expect({ id, files: files.length }).toEqual({ id, files: 1 });
  });
});
