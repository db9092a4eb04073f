import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import { buildTurn, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const SECRET = `ghp_${"CommitMessageLeak0".repeat(2)}`;

describe("a commit message built from an agent's answer", () => {
  it("is redacted before git keeps it in the branch's history", async () => {
    world = new WorktreeWorld([
      buildTurn("token", `Add the client, key ${SECRET}\n\nexport API_TOKEN=hunter2hunter2`),
    ]);
    const result = await world.run(["run", "build", "add the client"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const branch = `sssf/build/${adwIdFrom(result.stdout)}`;
    const message = git(world.dir, ["log", "--format=%B", `${world.base}..${branch}`]);
    expect(message).toContain("Add the client, key [redacted:github-pat]");
    expect(message).toContain("export API_TOKEN=[redacted:named-value]");
    expect(message).not.toContain(SECRET.slice(4, 16));
    expect(message).not.toContain("hunter2");
  });
});
