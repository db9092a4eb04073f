import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import {
  breachEvents,
  git,
  gitSandbox,
  outsideName,
  porcelain,
  promptPhase,
  runPrompt,
} from "./boundary-fixture.js";
import { treeState } from "./tree-state.js";

const done = envelopeJson({ summary: "done" });
let sb: Sandbox | undefined;
const outside: string[] = [];
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
  for (const file of outside.splice(0)) rmSync(file, { recursive: true, force: true });
});

describe("writes through symlinks are judged by what they really touch", () => {
  it("restores files next to the repo written through committed links (a file and a folder) and through links the agent made", async () => {
    const linkedFile = outsideName();
    const linkedDir = outsideName().replace(/\.txt$/, "");
    const madeTarget = outsideName();
    const toolTarget = outsideName();
    const box = gitSandbox([
      {
        name: "assistant",
        extra: { writes: ["src/**"] },
        turns: [
          {
            tool_calls: [
              // Through committed links, by a shell: no tool names a path.
              {
                tool: "bash",
                bash: "printf 'hacked\\n' > shared.txt && printf 'more\\n' >> vendor/data.txt",
              },
              // A link the agent makes inside its writes, then a shell write through it.
              {
                tool: "bash",
                bash: `ln -s ../../${madeTarget} src/made.txt && printf 'x\\n' > src/made.txt`,
              },
              // A link the agent makes, then a write tool through it.
              { tool: "bash", bash: `ln -s ../../${toolTarget} src/tool.txt` },
              { tool: "write", write_file: { path: "src/tool.txt", content: "through the tool\n" } },
            ],
            reply: done,
          },
        ],
      },
    ]);
    sb = box;
    const parent = path.dirname(box.dir);
    for (const name of [linkedFile, linkedDir, madeTarget, toolTarget]) outside.push(path.join(parent, name));
    writeFileSync(path.join(parent, linkedFile), "the operator's shared file\n");
    mkdirSync(path.join(parent, linkedDir));
    writeFileSync(path.join(parent, linkedDir, "data.txt"), "vendored\n");
    writeFileSync(path.join(parent, madeTarget), "made target\n");
    writeFileSync(path.join(parent, toolTarget), "tool target\n");
    symlinkSync(`../${linkedFile}`, path.join(box.dir, "shared.txt"));
    symlinkSync(`../${linkedDir}`, path.join(box.dir, "vendor"));
    git(box.dir, "add", "shared.txt", "vendor");
    git(box.dir, "commit", "-q", "-m", "links out");
    const before = new Map(
      [linkedFile, linkedDir, madeTarget, toolTarget].map((name) => [
        name,
        treeState(path.join(parent, name)),
      ]),
    );
    const statusBefore = porcelain(box);

    const result = await runPrompt(box);
    expect(result.code).toBe(1);
    expect(promptPhase(box, result.adwId).status).toBe("fail");
    // Outside the repository sssf keeps no copy of any file's content (issue 34, item 2): each change
    // there is found and reported, and left as the agent made it.
    for (const [name, state] of before) expect(treeState(path.join(parent, name))).not.toEqual(state);
    expect(readFileSync(path.join(box.dir, "shared.txt"), "utf8")).toBe("hacked\n");
    expect(porcelain(box)).toBe(`${statusBefore}?? src/made.txt\n?? src/tool.txt\n`);
    expect(
      breachEvents(box, result.adwId)
        .map((e) => `${e.payload.path} ${e.payload.change} ${e.payload.rule} ${e.payload.restored}`)
        .sort(),
    ).toEqual(
      [
        `../${linkedFile} modified outside_root false`,
        `../${linkedDir}/data.txt modified outside_root false`,
        `../${madeTarget} modified outside_root false`,
        `../${toolTarget} modified outside_root false`,
      ].sort(),
    );
  });
});
