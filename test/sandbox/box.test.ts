import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliResult, collect } from "../helpers/sandbox.js";
import { BoxWorld, bwrapWorks, processesOf } from "./box-world.js";

const boxed = bwrapWorks();
const worlds: BoxWorld[] = [];
const world = (agentSandbox: Record<string, unknown> = {}) => {
  const w = new BoxWorld(agentSandbox);
  worlds.push(w);
  return w;
};
afterEach(() => {
  for (const w of worlds.splice(0)) w.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const onlySession = (w: BoxWorld) => readdirSync(path.join(w.dir, "adws/adw_data/sessions"))[0] ?? "";

/** Runs sssf while looking for `watched` files every 20 ms; returns the result and what was ever seen. */
async function runWatching(w: BoxWorld, args: string[], watched: string[], env: Record<string, string> = {}) {
  const result = collect(w.start(args, env));
  const seen = new Set<string>();
  let finished: CliResult | null = null;
  void result.then((r) => {
    finished = r;
  });
  while (finished === null) {
    for (const file of watched) if (existsSync(file)) seen.add(file);
    await sleep(20);
  }
  return { result: await result, seen: [...seen] };
}

describe.skipIf(!boxed)("an agent inside the box (bubblewrap)", () => {
  it("writes its working tree and context_handoff/ at stable paths; a write anywhere else never exists, not even during the run", async () => {
    const w = world();
    const gitDir = path.join(w.dir, ".git");
    const markers = [
      path.join(w.outside, "marker"),
      path.join(w.home, "marker"),
      path.join(w.dir, "marker-in-checkout"),
      path.join(w.root, "marker-beside"),
      path.join(gitDir, "hooks/post-checkout"),
      path.join(gitDir, "info/marker"),
      path.join(gitDir, "refs/heads/planted"),
    ];
    const before = readFileSync(path.join(gitDir, "config"), "utf8");
    const actions = [
      ...markers.map((file) => ({ write: file })),
      { write: "inside.txt" },
      { write: "/sssf/context_handoff/note.md" },
      { sh: "git config core.fsmonitor 'touch /tmp/fsmonitor-ran'" },
      { sh: "git update-ref refs/heads/main HEAD~0" },
      { sh: "git commit --allow-empty -q -m sneaky" },
      { sleep: 1200 },
    ];
    const { result, seen } = await runWatching(
      w,
      ["run", "prompt", BoxWorld.request(actions), "--agent", "agent"],
      markers,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(seen).toEqual([]);
    expect(readFileSync(path.join(gitDir, "config"), "utf8")).toBe(before);
    const adwId = onlySession(w);
    const outcomes = w.outcomes(adwId);
    expect(outcomes[0]).toBe("cwd=/sssf/work/repo");
    expect(outcomes[1]).toBe("handoff=/sssf/context_handoff");
    for (const file of markers)
      expect(outcomes).toContain(
        `refused ${file}: ${file.includes(".git") ? outcomeCode(outcomes, file) : "EROFS"}`,
      );
    expect(outcomes).toContain("wrote inside.txt");
    expect(outcomes).toContain("wrote /sssf/context_handoff/note.md");
    expect(outcomes.filter((o) => o.startsWith("refused git ")).length).toBe(3);
    expect(readFileSync(path.join(w.worktree(adwId), "inside.txt"), "utf8")).toContain(
      "written by the agent",
    );
    expect(readFileSync(path.join(w.sessionDir(adwId), "context_handoff/note.md"), "utf8")).toContain(
      "written",
    );
    // The prompt as sent names the stable path, never the session's own folder.
    const prompts = path.join(w.sessionDir(adwId), "agent/prompts");
    const sent = readdirSync(prompts)
      .map((file) => readFileSync(path.join(prompts, file), "utf8"))
      .join("\n");
    expect(sent).toContain("HANDOFF=/sssf/context_handoff");
    expect(sent).not.toContain(w.sessionDir(adwId));
  });

  it("traces a write the box refused as one boundary event naming the path, and goes on", async () => {
    const w = world();
    const targets = [path.join(w.outside, "a b.txt"), path.join(w.home, ".bashrc-planted")];
    const actions = [
      { bash: `echo x > '${targets[0]}'` },
      { bash: `touch '${targets[1]}'` },
      { bash: `touch '${targets[1]}'` },
      { bash: "echo fine > ok.txt" },
    ];
    const result = await w.run(["run", "prompt", BoxWorld.request(actions), "--agent", "agent"]);
    expect(result.code, result.stderr).toBe(0);
    const events = await w.run(["events", onlySession(w), "--json"]);
    const boundary = (JSON.parse(events.stdout) as { name: string; payload: { path?: string } }[]).filter(
      (e) => e.name === "boundary",
    );
    expect(boundary.map((e) => e.payload.path).sort()).toEqual([...targets].sort());
    for (const file of targets) expect(existsSync(file)).toBe(false);
    expect(`${result.stdout}${result.stderr}`).toContain(`the sandbox refused ${targets[0]}`);
  });

  it("reaches only the hosts sandbox.network lists, through sssf's proxy; everything else is refused and traced", async () => {
    const server = http.createServer((_, response) => response.end("hello"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const other = http.createServer((_, response) => response.end("secret"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const allowed = `127.0.0.1:${(server.address() as { port: number }).port}`;
      const refused = `127.0.0.1:${(other.address() as { port: number }).port}`;
      const w = world({ sandbox: { network: [allowed] } });
      const actions = [
        { get: `http://${allowed}/` },
        { get: `http://${refused}/` },
        { get: `http://${allowed}/`, direct: true },
      ];
      const result = await w.run(["run", "prompt", BoxWorld.request(actions), "--agent", "agent"]);
      expect(result.code, result.stderr).toBe(0);
      const outcomes = w.outcomes(onlySession(w));
      expect(outcomes).toContain(`get http://${allowed}/: 200`);
      expect(outcomes).toContain(`get http://${refused}/: 403`);
      // The box has no network of its own: the host's loopback is not there.
      expect(outcomes.find((o) => o.startsWith(`get http://${allowed}/ direct: `))).toMatch(
        /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|TIMEOUT/,
      );
      const events = await w.run(["events", onlySession(w), "--json"]);
      expect(events.stdout).toContain(`network: refused ${refused}`);
    } finally {
      server.close();
      other.close();
    }
  });

  it("has no network at all with sandbox.network: []", async () => {
    const server = http.createServer((_, response) => response.end("hello"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const target = `127.0.0.1:${(server.address() as { port: number }).port}`;
      const w = world({ sandbox: { network: [] } });
      const result = await w.run([
        "run",
        "prompt",
        BoxWorld.request([{ get: `http://${target}/`, direct: true }]),
        "--agent",
        "agent",
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(w.outcomes(onlySession(w))).toContain(`get http://${target}/ direct: ECONNREFUSED`);
    } finally {
      server.close();
    }
  });

  it("cannot read credential files in the home folder", async () => {
    const w = world();
    const secrets = [".ssh/id_ed25519", ".netrc", ".aws/credentials", ".git-credentials"].map((f) =>
      path.join(w.home, f),
    );
    const result = await w.run([
      "run",
      "prompt",
      BoxWorld.request(secrets.map((read) => ({ read }))),
      "--agent",
      "agent",
      "--in-place",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const outcomes = w.outcomes(onlySession(w));
    for (const file of secrets)
      expect(
        outcomes.some((o) => o.startsWith(`refused ${file}:`)),
        outcomes.join("\n"),
      ).toBe(true);
  });

  it("keeps an in-place run's git dir and sssf's data folder read-only", async () => {
    const w = world();
    const config = path.join(w.dir, ".git/config");
    const db = path.join(w.dir, "adws/adw_data/sssf-planted.db");
    const actions = [
      { write: ".git/config" },
      { write: "adws/adw_data/sssf-planted.db" },
      { write: "ok.txt" },
    ];
    const result = await w.run([
      "run",
      "prompt",
      BoxWorld.request(actions),
      "--agent",
      "agent",
      "--in-place",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const outcomes = w.outcomes(onlySession(w));
    expect(outcomes).toContain("refused .git/config: EROFS");
    expect(outcomes).toContain("refused adws/adw_data/sssf-planted.db: EROFS");
    expect(outcomes).toContain("wrote ok.txt");
    expect(readFileSync(config, "utf8")).not.toContain("written by the agent");
    expect(existsSync(db)).toBe(false);
  });

  it("records the policy each send ran under in the trace", async () => {
    const w = world();
    const result = await w.run(["run", "prompt", BoxWorld.request([]), "--agent", "agent", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const events = await w.run(["events", onlySession(w), "--type", "agent_start", "--json"]);
    const [start] = JSON.parse(events.stdout) as { payload: { sandbox: Record<string, unknown> } }[];
    expect(start?.payload.sandbox).toMatchObject({
      boxed: true,
      mode: "auto",
      backend: "bwrap",
      network: "open",
    });
    expect(JSON.stringify(start?.payload.sandbox)).toContain("-> /sssf/work/repo");
  });

  it("ends the agent and a daemon it started when sssf is SIGKILLed", async () => {
    await expectOrphansEnd(world(), {});
  });
});

describe("an agent outside the box", () => {
  it("ends with a daemon it started when sssf is SIGKILLed (the lifeline), with sandbox.mode: off", async () => {
    await expectOrphansEnd(world({ sandbox: { mode: "off" } }), {});
  });

  it("ends with sssf under SSSF_SANDBOX=off too", async () => {
    await expectOrphansEnd(world(), { SSSF_SANDBOX: "off" });
  });

  it("runs, saying once why, when bubblewrap is missing and sandbox.mode is auto", async () => {
    const w = world();
    const result = await w.run(
      ["run", "prompt", BoxWorld.request([{ write: "a.txt" }]), "--agent", "agent"],
      {
        SSSF_BWRAP: path.join(w.root, "no-such-bwrap"),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const said = `${result.stdout}${result.stderr}`
      .split("\n")
      .filter((line) => line.includes("agents are not boxed"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("SSSF_BWRAP");
  });

  it("is refused before any agent starts, exit 2, when sandbox.mode is required and there is no sandbox", async () => {
    const w = world({ sandbox: { mode: "required" } });
    const missing = await w.run(
      ["run", "prompt", BoxWorld.request([{ write: "a.txt" }]), "--agent", "agent"],
      {
        SSSF_BWRAP: path.join(w.root, "no-such-bwrap"),
      },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("sandbox.mode is required");
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(w.dir, "adws/adw_data/sessions"))).toBe(false);

    // A bwrap that cannot make namespaces names the cause and the fix.
    const broken = path.join(w.root, "broken-bwrap");
    writeFileSync(broken, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(broken, 0o755);
    const refused = await w.run(["run", "prompt", "x", "--agent", "agent"], { SSSF_BWRAP: broken });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("user namespaces");
  });

  it("is refused when sandbox.mode is required and an allow_write path does not exist", async () => {
    if (!boxed) return;
    const w = world({ sandbox: { mode: "required", allow_write: ["/no/such/folder"] } });
    const result = await w.run(["run", "prompt", "x", "--agent", "agent"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("/no/such/folder");
  });

  it("sssf doctor says whether each agent is boxed, and why not", async () => {
    const w = world();
    const off = await w.run(["doctor"], { SSSF_SANDBOX: "off" });
    expect(off.stdout).toMatch(/sandbox.*not boxed \(SSSF_SANDBOX: off\)/);
    const none = await w.run(["doctor"], { SSSF_BWRAP: "/no/such/bwrap" });
    expect(none.stdout).toMatch(/sandbox.*not boxed: SSSF_BWRAP=\/no\/such\/bwrap/);
    if (boxed) {
      const on = await w.run(["doctor"]);
      expect(on.stdout).toMatch(/sandbox.*boxed by bubblewrap/);
    }
  });
});

function outcomeCode(outcomes: string[], file: string): string {
  const line = outcomes.find((o) => o.startsWith(`refused ${file}: `));
  return line?.slice(`refused ${file}: `.length) ?? "missing";
}

/** Starts an agent that forks a daemon and sleeps; SIGKILLs sssf; every marked process must be gone soon. */
async function expectOrphansEnd(w: BoxWorld, env: Record<string, string>): Promise<void> {
  const child = w.start(
    [
      "run",
      "prompt",
      BoxWorld.request([{ daemon: true }, { write: "started" }, { sleep: 60_000 }]),
      "--agent",
      "agent",
    ],
    env,
  );
  let adwId = "";
  const started = Date.now();
  while (Date.now() - started < 20_000) {
    const sessions = existsSync(path.join(w.dir, "adws/adw_data/sessions")) ? onlySession(w) : "";
    if (sessions !== "" && processesOf(sessions).length >= 2) {
      adwId = sessions;
      break;
    }
    await sleep(50);
  }
  expect(adwId, "the agent and its daemon started").not.toBe("");
  await sleep(300);
  expect(processesOf(adwId).length).toBeGreaterThanOrEqual(2);
  child.kill("SIGKILL");
  const killedAt = Date.now();
  let left = processesOf(adwId);
  while (left.length > 0 && Date.now() - killedAt < 5000) {
    await sleep(20);
    left = processesOf(adwId);
  }
  expect(left, "processes of the agent still alive after sssf was killed").toEqual([]);
}
