import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, Sandbox } from "../helpers/sandbox.js";
import { alive, waitFor } from "../helpers/wait.js";

// Unboxed (SSSF_SANDBOX=off): these tests read the host pids their agents write and signal them; test/sandbox covers the box.
process.env.SSSF_SANDBOX = "off";

// Drives the built CLI (`npm run build` first) with a repo-local workflow that fans out to two agents.

const PAIR = `import { defineWorkflow, GenericOutput } from "sssf";

export default defineWorkflow({
  name: "pair",
  description: "two agents at once",
  agents: ["alpha", "beta"],
  async run(run, request) {
    const call = (name: string, owner: string) =>
      run.agent(name, { owner, description: name }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: request }));
    await run.parallel([() => call("spec", "alpha"), () => call("design", "beta")]);
    return run.finish({ accepted: true });
  },
});
`;

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("SIGTERM during run.parallel", () => {
  it("kills every branch's agent process group, ends both phases and finalizes the session", async () => {
    const hang = [{ spawn_grandchild: true, hang: true }];
    sb.setup([
      { name: "alpha", turns: hang },
      { name: "beta", turns: hang },
    ]);
    mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
    writeFileSync(path.join(sb.dir, "adws/adw_pair.ts"), PAIR);
    const child = sb.start(["run", "pair", "hang around", "--adw-id", "feedc0de"]);
    const done = collect(child);
    const pidFile = (agent: string) =>
      path.join(sb.sessionDir("feedc0de"), agent, "exec_sessions/grandchild.pid");
    const ready = (agent: string) =>
      existsSync(pidFile(agent)) && readFileSync(pidFile(agent), "utf8").trim() !== "";
    await waitFor(() => ready("alpha") && ready("beta"), 30_000, "both agents to start");
    const grandchildren = ["alpha", "beta"].map((agent) =>
      Number(readFileSync(pidFile(agent), "utf8").trim()),
    );
    expect(grandchildren.map(alive)).toEqual([true, true]);

    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(143);
    await waitFor(() => grandchildren.every((pid) => !alive(pid)), 5000);
    const processes = sb.query<{ agent: string; pid: number }>(
      "SELECT agent, pid FROM processes ORDER BY agent",
    );
    expect(processes.map((p) => p.agent)).toEqual(["alpha", "beta"]);
    expect(processes.some((p) => alive(p.pid))).toBe(false);
    expect(sb.query("SELECT name, status FROM phases ORDER BY number")).toEqual([
      { name: "spec", status: "fail" },
      { name: "design", status: "fail" },
    ]);
    expect(sb.query("SELECT status, accepted FROM sessions")).toEqual([{ status: "fail", accepted: 0 }]);
  });
});
