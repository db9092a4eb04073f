import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  bytes,
  errorEvents,
  git,
  gitSandbox,
  porcelain,
  promptPhase,
  runPrompt,
  write,
} from "./boundary-fixture.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

const WORKFLOW = 'import { helper } from "./adw_modules/helper.js";\nexport default helper;\n';
const HELPER_COMMITTED = "export const helper = 1;\n";
// The operator's uncommitted edit, with bytes no text round trip would keep.
const HELPER_DIRTY = Buffer.from("export const helper = 2; // wip\r\n\u0000\u00ff tail");

/** A git sandbox whose one agent plays `turns`, with a repo-local workflow and its module committed. */
function sandboxWithWorkflows(
  turns: Parameters<typeof gitSandbox>[0][number]["turns"],
  extra: Record<string, unknown> = {},
  top: Record<string, unknown> = {},
): Sandbox {
  const box = gitSandbox([{ name: "assistant", turns, extra }], top);
  write(box, "adws/adw_x.ts", WORKFLOW);
  write(box, "adws/adw_modules/helper.ts", HELPER_COMMITTED);
  git(box.dir, "add", "adws/adw_x.ts", "adws/adw_modules/helper.ts");
  git(box.dir, "commit", "-q", "-m", "workflows");
  sb = box;
  return box;
}

describe("config patterns end to end", () => {
  it("lets a planner with writes: [specs/] write specs/a.md without a breach", async () => {
    const box = gitSandbox([
      {
        name: "planner",
        turns: [
          {
            tool_calls: [
              { tool: "write", write_file: { path: "specs/a.md", content: "# Spec\n" } },
              { tool: "write", write_file: { path: "specs/deep/b.md", content: "# Deeper\n" } },
              { tool: "write", write_file: { path: "notes/todo.txt", content: "three\n" } },
            ],
            reply: done,
          },
        ],
        extra: { writes: ["specs/", "./notes/"] },
      },
    ]);
    sb = box;
    const result = await runPrompt(box);
    expect(result.code).toBe(0);
    expect(promptPhase(box, result.adwId).status).toBe("success");
    expect(errorEvents(box, result.adwId)).toEqual([]);
    expect(bytes(box, "specs/a.md")?.toString()).toBe("# Spec\n");
    expect(bytes(box, "specs/deep/b.md")?.toString()).toBe("# Deeper\n");
    expect(bytes(box, "notes/todo.txt")?.toString()).toBe("three\n");
  });

  it("restores repo-local workflows and their modules byte for byte, one error event per path", async () => {
    const box = sandboxWithWorkflows([
      {
        tool_calls: [
          { tool: "write", write_file: { path: "adws/adw_x.ts", content: "export default 0;\n" } },
          { tool: "bash", bash: "printf 'hijacked\\n' > adws/adw_modules/helper.ts" },
          { tool: "write", write_file: { path: "adws/adw_modules/extra/new.ts", content: "x\n" } },
          { tool: "write", write_file: { path: "src/main.ts", content: "export const main = 2;\n" } },
        ],
        reply: done,
      },
    ]);
    write(box, "adws/adw_modules/helper.ts", HELPER_DIRTY);
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    const phase = promptPhase(box, result.adwId);
    expect(phase.status).toBe("fail");
    expect(bytes(box, "adws/adw_x.ts")?.toString()).toBe(WORKFLOW);
    expect(bytes(box, "adws/adw_modules/helper.ts")?.equals(HELPER_DIRTY)).toBe(true);
    expect(existsSync(path.join(box.dir, "adws/adw_modules/extra"))).toBe(false);
    // The write inside the boundary stays.
    expect(bytes(box, "src/main.ts")?.toString()).toBe("export const main = 2;\n");
    expect(porcelain(box).split("\n").filter(Boolean).sort()).toEqual([
      " M adws/adw_modules/helper.ts",
      " M src/main.ts",
    ]);
    const events = breachEvents(box, result.adwId);
    expect(events.map((e) => e.payload).sort((a, b) => ((a.path ?? "") < (b.path ?? "") ? -1 : 1))).toEqual([
      { path: "adws/adw_modules/extra/new.ts", change: "added", rule: "protected", restored: true },
      { path: "adws/adw_modules/helper.ts", change: "modified", rule: "protected", restored: true },
      { path: "adws/adw_x.ts", change: "modified", rule: "protected", restored: true },
    ]);
    expect(events.every((e) => e.phase === "prompt" && e.agent === "assistant")).toBe(true);
    for (const file of ["adws/adw_x.ts", "adws/adw_modules/helper.ts", "adws/adw_modules/extra/new.ts"]) {
      expect(phase.error).toContain(`${file} (`);
    }
  });

  it("keeps protected winning over an agent's own writes naming adws/adw_modules/", async () => {
    const box = sandboxWithWorkflows(
      [
        {
          tool_calls: [{ tool: "write", write_file: { path: "adws/adw_modules/helper.ts", content: "y\n" } }],
          reply: done,
        },
      ],
      { writes: ["adws/adw_modules/"] },
    );
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(bytes(box, "adws/adw_modules/helper.ts")?.toString()).toBe(HELPER_COMMITTED);
    expect(breachEvents(box, result.adwId).map((e) => e.name)).toEqual([
      "write outside boundary: adws/adw_modules/helper.ts (modified, protected)",
    ]);
  });

  it("lets an agent write them once defaults.protected_files leaves them out", async () => {
    const box = sandboxWithWorkflows(
      [
        {
          tool_calls: [{ tool: "write", write_file: { path: "adws/adw_modules/helper.ts", content: "y\n" } }],
          reply: done,
        },
      ],
      { writes: ["adws/adw_modules/"] },
      { defaults: { protected_files: [".env", "adws/adw_sssf_config/", "adws/adw_*.ts"] } },
    );
    const result = await runPrompt(box);
    expect(result.code).toBe(0);
    expect(errorEvents(box, result.adwId)).toEqual([]);
    expect(bytes(box, "adws/adw_modules/helper.ts")?.toString()).toBe("y\n");
  });
});
