import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  bytes,
  git,
  gitSandbox,
  outsideName,
  porcelain,
  promptPhase,
  runPrompt,
  STARTING_FILES,
} from "./boundary-fixture.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
const outside: string[] = [];
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
  for (const file of outside.splice(0)) rmSync(file, { force: true });
});

/** A sandbox whose one agent may write only `src/**` and plays `turns`. */
function builderOnlySrc(turns: Parameters<typeof gitSandbox>[0][number]["turns"]): Sandbox {
  sb = gitSandbox([{ name: "assistant", turns, extra: { writes: ["src/**"] } }]);
  return sb;
}

async function expectFailedRun(box: Sandbox) {
  const result = await runPrompt(box);
  expect(result.code).toBe(1);
  expect(promptPhase(box, result.adwId).status).toBe("fail");
  return result;
}

describe("write boundaries end to end", () => {
  it("keeps a file named with a newline inside the writes, and restores one outside them", async () => {
    const box = builderOnlySrc([
      {
        tool_calls: [
          {
            tool: "bash",
            bash: "printf 'in\\n' > \"$(printf 'src/new\\nline.ts')\" && printf 'out\\n' > \"$(printf 'docs/new\\nline.md')\"",
          },
        ],
        reply: done,
      },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "src/new\nline.ts")?.toString()).toBe("in\n");
    expect(existsSync(path.join(box.dir, "docs/new\nline.md"))).toBe(false);
    expect(breachEvents(box, result.adwId).map((e) => e.payload)).toEqual([
      { path: "docs/new\nline.md", change: "added", rule: "outside_writes", restored: true },
    ]);
  });

  it("restores a file modified through bash outside writes, and fails the phase naming it", async () => {
    const box = builderOnlySrc([
      { tool_calls: [{ tool: "bash", bash: "printf 'hacked\\n' >> docs/guide.md" }], reply: done },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
    expect(porcelain(box)).toBe("");
    const events = breachEvents(box, result.adwId);
    expect(events.map((e) => e.name)).toEqual([
      "write outside boundary: docs/guide.md (modified, outside_writes)",
    ]);
    expect(events[0]?.payload).toEqual({
      path: "docs/guide.md",
      change: "modified",
      rule: "outside_writes",
      restored: true,
    });
    expect(events[0]?.agent).toBe("assistant");
    expect(promptPhase(box, result.adwId).error).toContain(
      "docs/guide.md (modified, outside_writes) restored",
    );
    expect(result.stdout).toContain("wrote outside its boundary: docs/guide.md");
    // The attempt still has its envelope row.
    const rows = box.query<{ valid: number }>("SELECT valid FROM envelopes WHERE adw_id = ?", result.adwId);
    expect(rows).toEqual([{ valid: 1 }]);
  });

  it("restores a deleted file", async () => {
    const box = builderOnlySrc([
      { tool_calls: [{ tool: "delete", delete_file: "notes/todo.txt" }], reply: done },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "notes/todo.txt")?.toString()).toBe(STARTING_FILES["notes/todo.txt"]);
    expect(porcelain(box)).toBe("");
    expect(breachEvents(box, result.adwId).map((e) => e.payload)).toEqual([
      { path: "notes/todo.txt", change: "deleted", rule: "outside_writes", restored: true },
    ]);
  });

  it("undoes a rename out of the boundary on both sides, removing the folder it created", async () => {
    const box = builderOnlySrc([
      {
        tool_calls: [{ tool: "mv", rename_file: { from: "docs/guide.md", to: "src/moved/guide.md" } }],
        reply: done,
      },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
    expect(existsSync(path.join(box.dir, "src/moved"))).toBe(false);
    expect(porcelain(box)).toBe("");
    const [event] = breachEvents(box, result.adwId);
    expect(event?.name).toBe(
      "write outside boundary: src/moved/guide.md (renamed from docs/guide.md, outside_writes)",
    );
    expect(event?.payload).toEqual({
      path: "src/moved/guide.md",
      change: "renamed",
      previous_path: "docs/guide.md",
      rule: "outside_writes",
      restored: true,
    });
  });

  it("removes a file created next to the repo and reports a modified one there, keeping no copy of it", async () => {
    const created = outsideName();
    const existing = outsideName();
    const box = builderOnlySrc([
      {
        tool_calls: [
          { tool: "write", write_file: { path: `../${created}`, content: "new\n" } },
          { tool: "write", write_file: { path: `../${existing}`, content: "overwritten\n" } },
        ],
        reply: done,
      },
    ]);
    const parent = path.dirname(box.dir);
    outside.push(path.join(parent, created), path.join(parent, existing));
    const original = Buffer.from("operator's own file\n\u0000binary tail");
    writeFileSync(path.join(parent, existing), original);
    const result = await expectFailedRun(box);
    expect(existsSync(path.join(parent, created))).toBe(false);
    // Outside the repository sssf keeps no copy of a file's content (issue 34, item 2).
    expect(readFileSync(path.join(parent, existing), "utf8")).toBe("overwritten\n");
    const events = breachEvents(box, result.adwId);
    expect(events.map((e) => e.payload)).toEqual(
      [
        { path: `../${created}`, change: "added", rule: "outside_root", restored: true },
        {
          path: `../${existing}`,
          change: "modified",
          rule: "outside_root",
          restored: false,
          note: expect.stringContaining("keeps no copy"),
        },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
    expect(promptPhase(box, result.adwId).error).toContain(`../${created} (added, outside_root) restored`);
  });

  it("restores protected files: an ignored .env changed through bash and the config yaml", async () => {
    const config = "adws/adw_sssf_config/sssf.config.yaml";
    const box = gitSandbox([
      {
        name: "assistant",
        turns: [
          {
            tool_calls: [
              { tool: "bash", bash: "printf 'SECRET=stolen\\n' > .env" },
              { tool: "write", write_file: { path: config, content: "agents: []\n" } },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    writeFileSync(
      path.join(box.dir, ".gitignore"),
      ".env\nadws/adw_data/sessions/\nadws/adw_data/sssf.db*\n",
    );
    git(box.dir, "add", ".gitignore");
    git(box.dir, "commit", "-q", "-m", "ignore .env");
    writeFileSync(path.join(box.dir, ".env"), "SECRET=mine\n");
    const configBefore = bytes(box, config);
    const result = await expectFailedRun(box);
    expect(bytes(box, ".env")?.toString()).toBe("SECRET=mine\n");
    expect(bytes(box, config)?.equals(configBefore as Buffer)).toBe(true);
    expect(
      breachEvents(box, result.adwId)
        .map((e) => e.name)
        .sort(),
    ).toEqual([
      "write outside boundary: .env (modified, protected)",
      `write outside boundary: ${config} (modified, protected)`,
    ]);
  });

  it("restores a breach of a send whose JSON was malformed and fails on the breach, not the JSON", async () => {
    const box = builderOnlySrc([
      {
        tool_calls: [{ tool: "write", write_file: { path: "README.md", content: "mine now\n" } }],
        reply: "this is not json at all",
      },
      { reply: done },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "README.md")?.toString()).toBe("# sandbox\n");
    expect(box.agent("assistant").sends()).toHaveLength(1);
    const phase = promptPhase(box, result.adwId);
    expect(phase.error).toContain(
      "assistant wrote outside its boundary: README.md (modified, outside_writes)",
    );
    expect(breachEvents(box, result.adwId).map((e) => e.payload.path)).toEqual(["README.md"]);
    const rows = box.query<{ valid: number }>("SELECT valid FROM envelopes WHERE adw_id = ?", result.adwId);
    expect(rows).toEqual([{ valid: 0 }]);
  });

  it("restores a breach of a send that failed (agent exit without a result)", async () => {
    const box = builderOnlySrc([
      {
        tool_calls: [{ tool: "bash", bash: "rm docs/guide.md && echo x > stray.txt" }],
        no_result: true,
        exit_code: 1,
      },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "docs/guide.md")?.toString()).toBe(STARTING_FILES["docs/guide.md"]);
    expect(existsSync(path.join(box.dir, "stray.txt"))).toBe(false);
    expect(porcelain(box)).toBe("");
    expect(breachEvents(box, result.adwId).map((e) => `${e.payload.path} ${e.payload.change}`)).toEqual([
      "docs/guide.md deleted",
      "stray.txt added",
    ]);
    expect(promptPhase(box, result.adwId).error).toMatch(/restored; the call failed \(/);
  });

  it("keeps the in-boundary write of a send while restoring its out-of-boundary one", async () => {
    const box = builderOnlySrc([
      {
        tool_calls: [
          { tool: "write", write_file: { path: "src/feature.ts", content: "export const f = 2;\n" } },
          { tool: "write", write_file: { path: "lib/extra/helper.ts", content: "nope\n" } },
        ],
        reply: done,
      },
    ]);
    const result = await expectFailedRun(box);
    expect(bytes(box, "src/feature.ts")?.toString()).toBe("export const f = 2;\n");
    expect(existsSync(path.join(box.dir, "lib"))).toBe(false);
    expect(breachEvents(box, result.adwId).map((e) => e.payload)).toEqual([
      { path: "lib/extra/helper.ts", change: "added", rule: "outside_writes", restored: true },
    ]);
  });
});
