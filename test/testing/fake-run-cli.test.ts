/**
 * The offline kit through the built CLI with the real pi: `sssf fake-model` sets pi up, and
 * `sssf run --fake-script` runs a workflow against its own fake model (e2e: `npm run build` first).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeScript, LoggedRequest } from "../../src/testing/index.js";
import { adwIdFrom, cliPath, collect, Sandbox } from "../helpers/sandbox.js";
import { piBinary } from "../runtimes/pi/pi-world.js";
import { writePiRepo } from "./pi-repo.js";

let sb: Sandbox;
const servers: ChildProcess[] = [];
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => {
  for (const server of servers.splice(0)) if (server.exitCode === null) server.kill("SIGKILL");
  sb.cleanup();
});

/** `sssf fake-model …` from dist, killed after the test if it is still running. */
function startFakeModel(args: string[]): ChildProcess {
  const server = spawn(process.execPath, [cliPath, "fake-model", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.push(server);
  return server;
}

function scriptFile(script: unknown, name = "script.json"): string {
  const file = path.join(sb.agentsDir, name);
  writeFileSync(file, typeof script === "string" ? script : JSON.stringify(script));
  return file;
}

const report = (fields: Record<string, unknown>) => JSON.stringify({ status: "success", ...fields });

const loggedRequests = (file: string): LoggedRequest[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line))
    .filter((entry: { kind: string }) => entry.kind === "request");

describe("sssf fake-model sets pi up", () => {
  it("prints PI_CODING_AGENT_DIR, and pi run with the printed env answers from the script", async () => {
    const script = scriptFile({ steps: [{ match: { text: "TURN-1" }, reply: "hello from the script" }] });
    const log = path.join(sb.agentsDir, "log.jsonl");
    const server = startFakeModel(["--script", script, "--log", log]);
    const exited = collect(server);
    let stdout = "";
    const printed = await new Promise<string>((resolve) => {
      server.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("# pi:")) resolve(stdout);
      });
    });
    const env: Record<string, string> = {};
    for (const line of printed.split("\n").filter((l) => l.startsWith("export "))) {
      for (const pair of line.slice("export ".length).split(" ")) {
        const [key = "", ...value] = pair.split("=");
        env[key] = value.join("=");
      }
    }
    const agentDir = env.PI_CODING_AGENT_DIR ?? "";
    expect(agentDir).not.toBe("");
    expect(JSON.parse(readFileSync(path.join(agentDir, "settings.json"), "utf8"))).toMatchObject({
      defaultProvider: "fake",
      defaultModel: "fake-model",
      retry: { enabled: false },
    });
    expect(printed).toContain("fake/fake-model");

    // No --model: the agent dir's default is the fake.
    const pi = await collect(
      spawn(piBinary, ["--print", "--no-session", "--offline", "TURN-1 say hello"], {
        cwd: sb.dir,
        env: { ...process.env, ...env, HOME: sb.agentsDir, PI_OFFLINE: "1", PI_TELEMETRY: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    expect(pi.stderr).toBe("");
    expect(pi.stdout.trim()).toBe("hello from the script");
    expect(pi.code).toBe(0);

    server.kill("SIGTERM");
    const result = await exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("1 request(s), 0 egress attempt(s) refused");
    expect(loggedRequests(log).map((entry) => [entry.api, entry.step])).toEqual([["openai-chat", 0]]);
    // The default agent dir is a temp dir, removed on exit.
    expect(existsSync(agentDir)).toBe(false);
  });

  it("writes the agent dir into --pi-dir, keeps it, and quotes it for the shell", async () => {
    const piDir = path.join(sb.agentsDir, "pi agent");
    const server = startFakeModel(["--pi-dir", piDir]);
    const exited = collect(server);
    await new Promise<void>((resolve) => server.stdout?.on("data", () => resolve()));
    server.kill("SIGTERM");
    const result = await exited;
    expect(result.stdout).toContain(`export PI_CODING_AGENT_DIR='${piDir}'\n`);
    const models = JSON.parse(readFileSync(path.join(piDir, "models.json"), "utf8"));
    const url = /listening on (\S+)/.exec(result.stdout)?.[1];
    expect(models.providers.fake.baseUrl).toBe(`${url}/v1`);
  });

  it("exits 2 naming the file and the step of a bad delayMs", async () => {
    const script = scriptFile({ steps: [{ reply: "a" }, { delayMs: -5, reply: "b" }] });
    const result = await sb.run(["fake-model", "--script", script]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(script);
    expect(result.stderr).toContain("steps[1].delayMs:");
  });
});

describe("sssf run --fake-script", () => {
  const writeHello: FakeScript = {
    steps: [
      {
        match: { hasTools: true, afterToolResult: false },
        writeFile: { path: "hello.txt", content: "hi\n" },
      },
      {
        match: { afterToolResult: true },
        reply: report({ summary: "wrote hello.txt", artifacts: ["hello.txt"] }),
      },
    ],
  };

  it("runs the prompt workflow with real pi offline: accepted, the fake answered, no egress", async () => {
    writePiRepo(sb);
    const result = await sb.run([
      "run",
      "prompt",
      "TURN-1 write hello.txt",
      "--fake-script",
      scriptFile(writeHello),
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ACCEPTED");
    expect(result.stdout).toContain("fake model answered 2 model request(s), refused 0 egress attempt(s)");
    expect(readFileSync(path.join(sb.dir, "hello.txt"), "utf8")).toBe("hi\n");
    const adwId = adwIdFrom(result.stdout);
    expect(sb.query("SELECT name, status FROM phases WHERE adw_id = ? ORDER BY number", adwId)).toEqual([
      { name: "request", status: "success" },
      { name: "prompt", status: "success" },
    ]);
    const requests = loggedRequests(path.join(sb.dir, "adws/adw_data/fake-model/requests.jsonl"));
    expect(requests.map((entry) => [entry.api, entry.step, entry.status])).toEqual([
      ["openai-chat", 0, 200],
      ["openai-chat", 1, 200],
    ]);
    expect(JSON.stringify(requests[0]?.body)).toContain("TURN-1 write hello.txt");
  });

  it("fails the phase and the run when an agent tries to reach the network", async () => {
    writePiRepo(sb);
    const script = scriptFile({
      steps: [
        {
          match: { hasTools: true, afterToolResult: false },
          tool: {
            name: "bash",
            args: { command: "curl -s -m 5 https://example.com/ -o /dev/null; echo $?" },
          },
        },
        { match: { afterToolResult: true }, reply: report({ summary: "fetched" }) },
      ],
    });
    const result = await sb.run(["run", "prompt", "fetch example.com", "--fake-script", script]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("egress refused by the fake model: CONNECT example.com:443");
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stderr).toContain(
      "sssf: --fake-script: the run tried to reach the network 1 time(s) (CONNECT example.com:443)",
    );
    const adwId = adwIdFrom(result.stdout);
    expect(sb.query("SELECT status FROM phases WHERE adw_id = ? AND name = 'prompt'", adwId)).toEqual([
      { status: "fail" },
    ]);
  });

  it("refuses an invalid script before anything runs (exit 2 naming the file and step)", async () => {
    writePiRepo(sb);
    const script = scriptFile({ steps: [{ delayMs: 1.5 }] });
    const result = await sb.run(["run", "prompt", "hi", "--fake-script", script]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(script);
    expect(result.stderr).toContain("steps[0].delayMs:");
    expect(existsSync(path.join(sb.dir, "adws/adw_data/sessions"))).toBe(false);
    const missing = await sb.run([
      "run",
      "prompt",
      "hi",
      "--fake-script",
      path.join(sb.agentsDir, "nope.json"),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--fake-script: cannot read .*nope\.json \(ENOENT\)/);
  });
});
