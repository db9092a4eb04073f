/**
 * Offline stays offline: a run started with `sssf run --fake-script` records its script, `sssf resume`
 * refuses to continue it without `--fake-script`, and with it points the agent at the fake model again
 * (the real pi, through the built CLI; e2e: `npm run build` first).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeScript } from "../../src/testing/index.js";
import { adwIdFrom, collect, Sandbox } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { writePiRepo } from "./pi-repo.js";

let sb: Sandbox;
let home: string;
beforeEach(() => {
  sb = new Sandbox();
  // sssf's own HOME: an offline run and its resume must leave it as they found it (empty).
  home = mkdtempSync(path.join(tmpdir(), "sssf-offline-home-"));
});
afterEach(() => {
  sb.cleanup();
  rmSync(home, { recursive: true, force: true });
});

/** Every file and folder under `dir`, relative. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

function scriptFile(script: FakeScript, name: string): string {
  const file = path.join(sb.agentsDir, name);
  writeFileSync(file, JSON.stringify(script));
  return file;
}

const logFile = () => path.join(sb.dir, "adws/adw_data/fake-model/requests.jsonl");

/** The fake's log: every request it answered and every egress attempt it refused. */
const logged = (): { kind: string; api?: string | null; status?: number | null }[] =>
  readFileSync(logFile(), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));

const failing: FakeScript = {
  steps: [{ reply: JSON.stringify({ status: "fail", summary: "cannot write hello.txt yet" }) }],
};
const writeHello: FakeScript = {
  steps: [
    { match: { hasTools: true, afterToolResult: false }, writeFile: { path: "hello.txt", content: "hi\n" } },
    {
      match: { afterToolResult: true },
      reply: JSON.stringify({ status: "success", summary: "wrote hello.txt", artifacts: ["hello.txt"] }),
    },
  ],
};

/** `sssf run prompt` offline with `failing`: the run is not accepted; its adw_id. */
async function failedOfflineRun(): Promise<{ adwId: string; script: string }> {
  writePiRepo(sb);
  const script = scriptFile(failing, "failing.json");
  const first = await sb.run(["run", "prompt", "write hello.txt", "--fake-script", script], { HOME: home });
  expect(first.code, first.stdout + first.stderr).toBe(1);
  expect(first.stdout).toContain("NOT ACCEPTED");
  return { adwId: adwIdFrom(first.stdout), script };
}

describe("sssf resume of a run started with --fake-script", () => {
  it("without --fake-script: refused before anything starts, naming the script, exit 2", {
    timeout: 120_000,
  }, async () => {
    const { adwId, script } = await failedOfflineRun();
    const steps = sb.query("SELECT id FROM steps WHERE adw_id = ?", adwId).length;
    const requests = logged().length;

    const resumed = await sb.run(["resume", adwId], { HOME: home });
    expect(resumed.code).toBe(2);
    expect(resumed.stdout).toBe("");
    expect(resumed.stderr).toContain(
      `sssf resume ${adwId}: the run was started offline with --fake-script ${script}; pass --fake-script ${script}`,
    );
    expect(resumed.stderr).not.toMatch(/\n\s+at /);
    // Nothing ran: no attempt journaled, no request made, the session still the failed one.
    expect(sb.query("SELECT id FROM steps WHERE adw_id = ?", adwId)).toHaveLength(steps);
    expect(logged()).toHaveLength(requests);
    expect(sb.query("SELECT status FROM sessions WHERE adw_id = ?", adwId)).toEqual([{ status: "fail" }]);
    expect(tree(home)).toEqual([]);

    const json = await sb.run(["resume", adwId, "--json"], { HOME: home });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "usage", field: "--fake-script" } });
  });

  it("with --fake-script: runs to the end against the fake only, HOME untouched, and records it again", {
    timeout: 120_000,
  }, async () => {
    const { adwId } = await failedOfflineRun();
    const before = logged().length;
    const script = scriptFile(writeHello, "write-hello.json");

    const resumed = await sb.run(["resume", adwId, "--fake-script", script], { HOME: home });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("ACCEPTED");
    expect(resumed.stdout).toContain("fake model answered 2 model request(s), refused 0 egress attempt(s)");
    expect(readFileSync(path.join(sb.dir, "hello.txt"), "utf8")).toBe("hi\n");
    // The resume's traffic, all of it to the fake model: two answered requests and no egress attempt.
    expect(logged().slice(before)).toEqual([
      expect.objectContaining({ kind: "request", api: "openai-chat", status: 200 }),
      expect.objectContaining({ kind: "request", api: "openai-chat", status: 200 }),
    ]);
    expect(tree(home)).toEqual([]);
    // The resume's own attempt journals the script too: a further resume stays offline as well.
    const starts = sb.query<{ result_json: string }>(
      "SELECT result_json FROM steps WHERE adw_id = ? AND op = 'start' ORDER BY attempt",
      adwId,
    );
    expect(starts.map((row) => JSON.parse(row.result_json).fake_script)).toEqual([
      path.join(sb.agentsDir, "failing.json"),
      script,
    ]);
  });

  it("interrupted during the agent's send, resumes offline to the end", { timeout: 120_000 }, async () => {
    writePiRepo(sb);
    // The model never answers in time: the run is interrupted while pi waits for it.
    const hanging = scriptFile({ steps: [{ delayMs: 600_000, reply: "too late" }] }, "hanging.json");
    const child = sb.start(["run", "prompt", "write hello.txt", "--fake-script", hanging], { HOME: home });
    const done = collect(child);
    // The trace may not exist yet, or be mid-migration: not running yet.
    const promptRunning = () => {
      try {
        return sb.query("SELECT id FROM phases WHERE name = 'prompt' AND status = 'running'").length === 1;
      } catch {
        return false;
      }
    };
    await waitFor(promptRunning, 60_000, "the prompt phase running");
    child.kill("SIGINT");
    const first = await done;
    expect(first.code).toBe(130);
    const adwId = adwIdFrom(first.stdout);

    const refused = await sb.run(["resume", adwId], { HOME: home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--fake-script ${hanging}`);

    const script = scriptFile(writeHello, "write-hello.json");
    const resumed = await sb.run(["resume", adwId, "--fake-script", script], { HOME: home });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("fake model answered 2 model request(s), refused 0 egress attempt(s)");
    expect(readFileSync(path.join(sb.dir, "hello.txt"), "utf8")).toBe("hi\n");
    expect(logged().filter((entry) => entry.kind !== "request")).toEqual([]);
    expect(tree(home)).toEqual([]);
  });

  it("an online run journals no script, and may be resumed with --fake-script", {
    timeout: 60_000,
  }, async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          { reply: JSON.stringify({ status: "fail", summary: "no" }) },
          { reply: JSON.stringify({ status: "success", summary: "yes" }) },
        ],
      },
    ]);
    const result = await sb.run(["run", "prompt", "hi"]);
    expect(result.code).toBe(1);
    const adwId = adwIdFrom(result.stdout);
    const startScripts = () =>
      sb
        .query<{ result_json: string }>(
          "SELECT result_json FROM steps WHERE adw_id = ? AND op = 'start' ORDER BY attempt",
          adwId,
        )
        .map((row) => JSON.parse(row.result_json).fake_script ?? null);
    expect(startScripts()).toEqual([null]);

    const script = scriptFile({ steps: [] }, "empty.json");
    const resumed = await sb.run(["resume", adwId, "--fake-script", script], { HOME: home });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("fake model answered 0 model request(s), refused 0 egress attempt(s)");
    expect(startScripts()).toEqual([null, script]);
  });
});
