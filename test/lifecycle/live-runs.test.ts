import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { type AgentTree, agentTree, hangingTurn, killTree, type Row, treeGone } from "./lifecycle-world.js";

// Unboxed (SSSF_SANDBOX=off): these tests read the host pids their agents write; test/sandbox covers the box.
process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
let tree: AgentTree | null = null;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => {
  killTree(tree);
  tree = null;
  sb.cleanup();
});

describe("live runs", () => {
  it("sssf ps lists a live run with its phase and agent pid; db rebuild is refused until it is stopped", async () => {
    const escapedFile = path.join(sb.agentsDir, "setsid.pid");
    sb.setup([{ name: "assistant", turns: [hangingTurn(escapedFile)] }]);
    const child = sb.start(["run", "prompt", "hang around", "--adw-id", "ab12cd34"]);
    const done = collect(child);
    tree = await agentTree(sb, "ab12cd34", escapedFile);

    const ps = await sb.run(["ps"]);
    expect(ps.code).toBe(0);
    const [header, line] = ps.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ADW_ID\s+PID\s+WORKFLOW\s+PHASE\s+AGENTS\s+ELAPSED\s+REQUEST$/);
    expect(line).toContain("ab12cd34");
    expect(line).toContain(`${child.pid}`);
    expect(line).toContain(`assistant:${tree.agent}`);
    expect(line).toContain("hang around");
    const json = await sb.run(["ps", "--json"]);
    const [run] = JSON.parse(json.stdout) as Row[];
    expect(run).toMatchObject({
      adw_id: "ab12cd34",
      workflow: "prompt",
      pid: child.pid,
      agents: [{ agent: "assistant", pid: tree.agent }],
    });
    expect(((run?.phases ?? []) as Row[]).map((p) => p.kind)).toEqual(["agent"]);
    expect(run?.elapsed_ms).toBeGreaterThan(0);

    const refused = await sb.run(["db", "rebuild"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to rebuild .* while a run is live: ab12cd34 \(pid \d+\)/);
    expect(refused.stderr).toContain("sssf kill <adw_id>");

    expect((await sb.run(["kill", "ab12cd34"])).code).toBe(0);
    expect((await done).code).toBe(143);
    await treeGone(tree, "after sssf kill");
    expect((await sb.run(["ps"])).stdout).toBe("no live runs\n");
    expect((await sb.run(["ps", "--json"])).stdout).toBe("[]\n");
    const rebuilt = await sb.run(["db", "rebuild"]);
    expect(rebuilt.code).toBe(0);
  });

  it("a run racing another for one --adw-id is told to wait or sssf kill, never to delete the live branch", async () => {
    sb.setup([{ name: "assistant", turns: [{ reply: envelopeJson({ summary: "ok" }) }] }]);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: sb.dir, stdio: "pipe" });
    git("init", "-q");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init");
    // The winner of the race: it holds the session's lock and has made its branch, no row written yet.
    git("branch", "sssf/race0001");
    mkdirSync(sb.sessionDir("race0001"), { recursive: true });
    writeFileSync(
      path.join(sb.sessionDir("race0001"), ".lock"),
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() }),
    );
    const loser = await sb.run(["run", "prompt", "go", "--adw-id", "race0001"]);
    expect(loser.code).toBe(2);
    expect(loser.stderr).toContain(`another sssf process (pid ${process.pid}) is running this session`);
    expect(loser.stderr).toContain("sssf kill race0001");
    expect(loser.stderr).toContain("sssf ps");
    expect(loser.stderr).not.toContain("branch -D");
  });
});
