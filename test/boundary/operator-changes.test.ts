import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  bytes,
  gitSandbox,
  porcelain,
  promptPhase,
  runPrompt,
  UNBOXED,
  write,
} from "./boundary-fixture.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

describe("the operator's uncommitted work and write boundaries", () => {
  it("leaves unrelated dirty files byte-identical and restores a dirty file the agent changed to its dirty content", async () => {
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            tool_calls: [
              { tool: "bash", bash: "printf 'agent was here\\n' > docs/guide.md && chmod 644 docs/guide.md" },
              { tool: "write", write_file: { path: "src/feature.ts", content: "export {};\n" } },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    const dirtyGuide = Buffer.from("# Guide\n\nThe operator's unsaved edit, not in HEAD.\n\u00ff\u0000\n");
    write(box, "docs/guide.md", dirtyGuide);
    chmodSync(path.join(box.dir, "docs/guide.md"), 0o755);
    write(box, "README.md", "# sandbox, edited by the operator\n");
    write(box, "scratch/idea.txt", "untracked idea\n");
    const statusBefore = porcelain(box);

    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    expect(bytes(box, "docs/guide.md")?.equals(dirtyGuide)).toBe(true);
    expect(statSync(path.join(box.dir, "docs/guide.md")).mode & 0o777).toBe(0o755);
    expect(bytes(box, "README.md")?.toString()).toBe("# sandbox, edited by the operator\n");
    expect(bytes(box, "scratch/idea.txt")?.toString()).toBe("untracked idea\n");
    // The in-boundary write stays; everything else is exactly the operator's.
    expect(bytes(box, "src/feature.ts")?.toString()).toBe("export {};\n");
    const lines = (status: string) => status.split("\n").filter(Boolean).sort();
    expect(lines(porcelain(box))).toEqual(lines(`${statusBefore}?? src/feature.ts\n`));
    expect(breachEvents(box, result.adwId).map((e) => e.payload)).toEqual([
      { path: "docs/guide.md", change: "modified", rule: "outside_writes", restored: true },
    ]);
  });

  it("accepts a run whose writes all stay inside the boundary, without error events", async () => {
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**", "docs/*.md"] },
        turns: [
          {
            tool_calls: [
              { tool: "write", write_file: { path: "src/deep/new.ts", content: "export {};\n" } },
              { tool: "bash", bash: "printf 'more\\n' >> docs/guide.md && cat src/main.ts" },
              { tool: "read", args: { path: "../" }, result: "listing" },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    write(box, "README.md", "# operator edit\n");
    const result = await runPrompt(box);
    expect(result.code).toBe(0);
    expect(breachEvents(box, result.adwId)).toEqual([]);
    expect(bytes(box, "docs/guide.md")?.toString()).toBe("# Guide\n\nRead me first.\nmore\n");
    expect(bytes(box, "src/deep/new.ts")?.toString()).toBe("export {};\n");
    expect(bytes(box, "README.md")?.toString()).toBe("# operator edit\n");
  });

  it("outside git: removes a created file and reports a modified one as not restorable", async () => {
    const box = new Sandbox().setup(
      [
        {
          name: "assistant",
          extra: { writes: ["src/**"] },
          turns: [
            {
              tool_calls: [
                { tool: "write", write_file: { path: "stray/new.txt", content: "x\n" } },
                { tool: "write", write_file: { path: "README.md", content: "changed\n" } },
                { tool: "write", write_file: { path: "src/ok.ts", content: "ok\n" } },
              ],
              reply: done,
            },
          ],
        },
      ],
      UNBOXED,
    );
    sb = box;
    mkdirSync(path.join(box.dir, "src"));
    writeFileSync(path.join(box.dir, "src/main.ts"), "1\n");
    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(existsSync(path.join(box.dir, "stray"))).toBe(false);
    expect(bytes(box, "src/ok.ts")?.toString()).toBe("ok\n");
    const payloads = breachEvents(box, result.adwId).map((e) => e.payload);
    expect(payloads).toEqual([
      {
        path: "README.md",
        change: "modified",
        rule: "outside_writes",
        restored: false,
        note: expect.stringContaining("not a git work tree"),
      },
      { path: "stray/new.txt", change: "added", rule: "outside_writes", restored: true },
    ]);
    expect(promptPhase(box, result.adwId).error).toContain(
      "README.md (modified, outside_writes) NOT restored",
    );
  });
});
