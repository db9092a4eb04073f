import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, repoRoot, Sandbox } from "../helpers/sandbox.js";

// The built CLI in a scratch repo with no node_modules: `sssf` and `zod` resolve only through sssf itself,
// as for a global install. The workflow is the one docs/workflows.md shows, taken from the doc itself.

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

function write(relative: string, content: string): void {
  const file = path.join(sb.dir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** The example of docs/workflows.md ("Your own output type and gate"), with its zod import as given. */
function docExample(zodImport: string): string {
  const doc = readFileSync(path.join(repoRoot, "docs/workflows.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Your own output type and gate"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error("docs/workflows.md lost its custom type and gate example");
  return code.replace('import { z } from "sssf";', zodImport);
}

const writes = (content: string) => [{ tool: "write", write_file: { path: "CHANGELOG.md", content } }];

describe("a repo-local workflow with its own output type and a gate that reads the repository", () => {
  for (const [label, zodImport] of [
    ["z from sssf", 'import { z } from "sssf";'],
    ["z from zod, not installed in the repo", 'import { z } from "zod";'],
  ] as const) {
    it(`runs end to end (${label}): the type is told, validated and corrected; the gate reads the repo`, async () => {
      sb.setup([
        {
          name: "writer",
          turns: [
            {
              tool_calls: writes("# Changelog\n\n## 1.2\n"),
              reply: envelopeJson({ summary: "wrote 1.2", version: "1.2" }),
            },
            { reply: envelopeJson({ summary: "wrote 1.2.0", version: "1.2.0" }) },
            {
              tool_calls: writes("# Changelog\n\n## 1.2.0\n"),
              reply: envelopeJson({ summary: "fixed", version: "1.2.0" }),
            },
          ],
        },
      ]);
      write("adws/adw_changelog.ts", docExample(zodImport));
      const result = await sb.run(["run", "changelog", "write up 1.2.0"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const adwId = adwIdFrom(result.stdout);
      const sends = sb.agent("writer").sends();
      expect(sends[0]?.prompt).toContain("matching `ChangelogOutput`");
      expect(sends[0]?.prompt).toContain("`version` (string, required): The version written up.");
      // 1: invalid version → JSON correction; 2: valid, but CHANGELOG.md lacks the heading → gate correction.
      expect(sends).toHaveLength(3);
      expect(
        sb.query(
          "SELECT attempt, reason, valid, accepted FROM envelopes WHERE adw_id = ? ORDER BY attempt",
          adwId,
        ),
      ).toEqual([
        { attempt: 1, reason: "initial", valid: 0, accepted: 0 },
        { attempt: 2, reason: "json_fix", valid: 1, accepted: 0 },
        { attempt: 3, reason: "gate_fix", valid: 1, accepted: 1 },
      ]);
      expect(
        sb.query("SELECT gate, ok FROM gate_results WHERE adw_id = ? ORDER BY created_at", adwId),
      ).toEqual([
        { gate: "version_in_changelog", ok: 0 },
        { gate: "version_in_changelog", ok: 1 },
      ]);
      expect(sb.query("SELECT reason FROM sessions WHERE adw_id = ?", adwId)).toEqual([
        { reason: "wrote 1.2.0" },
      ]);
    });
  }

  it("type-checks with the tsconfig docs/workflows.md gives, sssf installed as a dev dependency", () => {
    const doc = readFileSync(path.join(repoRoot, "docs/workflows.md"), "utf8");
    const tsconfig = /A `tsconfig.json` for the workflows[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(tsconfig).toBeDefined();
    write("tsconfig.json", tsconfig ?? "");
    write("adws/adw_changelog.ts", docExample('import { z } from "sssf";'));
    mkdirSync(path.join(sb.dir, "node_modules"), { recursive: true });
    symlinkSync(repoRoot, path.join(sb.dir, "node_modules/sssf"), "dir");
    // The repository's own @types/node, as the docs tell a user to install.
    mkdirSync(path.join(sb.dir, "node_modules/@types"), { recursive: true });
    symlinkSync(
      path.join(repoRoot, "node_modules/@types/node"),
      path.join(sb.dir, "node_modules/@types/node"),
      "dir",
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      {
        cwd: sb.dir,
        encoding: "utf8",
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });
});
