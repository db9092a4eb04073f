import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";
import { decodeAnthropic } from "./decode-replies.js";

const COMMAND = path.join(repoRoot, "src/cli/commands/fake-model.ts");
// The command module as `sssf fake-model` runs it, without needing a build.
const RUNNER = `import { fakeModelCommand } from ${JSON.stringify(COMMAND)}; process.exitCode = await fakeModelCommand(JSON.parse(process.argv[1]));`;

let dir = "";
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function start(options: Record<string, string>) {
  child = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", RUNNER, JSON.stringify(options)],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const running = child;
  let stdout = "";
  let stderr = "";
  running.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  running.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    running.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  const listening = new Promise<string>((resolve, reject) => {
    running.stdout?.on("data", () => {
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (found?.[1]) resolve(found[1]);
    });
    void exit.then((result) => reject(new Error(`exited ${result.code}: ${result.stderr}`)));
  });
  // Runs that are expected to fail never start listening; only `await listening` should see that.
  listening.catch(() => {});
  return { child: running, exit, listening };
}

function scriptFile(content: string): string {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-fake-model-cli-"));
  const file = path.join(dir, "script.json");
  writeFileSync(file, content);
  return file;
}

describe("sssf fake-model", () => {
  it("serves the script, prints the env to export, logs, and exits 0 on /__shutdown", async () => {
    const script = scriptFile(
      JSON.stringify({ steps: [{ match: { text: "TURN-1" }, reply: "from the cli" }] }),
    );
    const log = path.join(dir, "log.jsonl");
    const server = start({ script, log, port: "0" });
    const url = await server.listening;
    const reply = await fetch(`${url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "TURN-1" }] }),
    });
    expect((await decodeAnthropic(reply)).text).toBe("from the cli");
    await fetch(`${url}/__shutdown`, { method: "POST" });
    const result = await server.exit;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `export HTTPS_PROXY=${url} HTTP_PROXY=${url} NO_PROXY=127.0.0.1,localhost`,
    );
    expect(result.stdout).toContain(`ANTHROPIC_BASE_URL=${url}`);
    expect(result.stdout).toContain(`OPENAI_BASE_URL=${url}/v1`);
    expect(result.stderr).toBe("fake model server stopped: 1 request(s), 0 egress attempt(s) refused\n");
    expect(JSON.parse(readFileSync(log, "utf8").trim())).toMatchObject({ api: "anthropic", step: 0 });
  });

  it("exits 0 on SIGTERM", async () => {
    const server = start({});
    await server.listening;
    server.child.kill("SIGTERM");
    const result = await server.exit;
    expect(result.stderr).toContain("fake model server stopped");
    expect(result.code).toBe(0);
  });

  it("exits 2 naming the file and each bad field of an invalid script", async () => {
    const script = scriptFile(
      JSON.stringify({ steps: [{ match: { txt: "x" } }, { writeFile: { path: 3 } }] }),
    );
    const result = await start({ script }).exit;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(script);
    expect(result.stderr).toContain('steps[0].match.txt: unknown key (did you mean "text"?)');
    expect(result.stderr).toContain("steps[1].writeFile.path: expected a string, got 3");
  });

  it("exits 2 on a script that is not JSON, a missing script and a bad port", async () => {
    const broken = await start({ script: scriptFile("{ steps: [") }).exit;
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/script\.json .*\n {2}not valid JSON/);
    const missing = await start({ script: path.join(dir, "missing.json") }).exit;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--script: cannot read .*missing\.json \(ENOENT\)/);
    const port = await start({ port: "http" }).exit;
    expect(port.code).toBe(2);
    expect(port.stderr).toContain(
      '--port: expected an integer from 0 to 65535 (0 picks a free port), got "http"',
    );
  });
});
