import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { locatePi } from "../../../src/runtimes/pi/install.js";
import { resolvePiModel } from "../../../src/runtimes/pi/model-resolve.js";
import { loadPiModelCatalog, type PiModelCatalog, piAgentDir } from "../../../src/runtimes/pi/models.js";
import { repoRoot } from "../cli-harness.js";
import { piBinary } from "./pi-world.js";

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "sssf-pi-models-"));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

function catalogOf(
  models: Array<[string, string]>,
  builtinFile: string | null = "/x/models.generated.js",
): PiModelCatalog {
  return {
    agentDir: "/home/u/.pi/agent",
    modelsFile: "/home/u/.pi/agent/models.json",
    builtinFile,
    models: models.map(([provider, id]) => ({ provider, id })),
    customProviders: new Map(),
    problems: [],
  };
}

describe("pi model catalog", () => {
  it("finds the agent dir like pi: PI_CODING_AGENT_DIR (with ~), else ~/.pi/agent", () => {
    expect(piAgentDir({ HOME: "/h" })).toBe("/h/.pi/agent");
    expect(piAgentDir({ HOME: "/h", PI_CODING_AGENT_DIR: "~/pi" })).toBe("/h/pi");
    expect(piAgentDir({ HOME: "/h", PI_CODING_AGENT_DIR: "/abs/agent" })).toBe("/abs/agent");
  });

  it("locates the installed pi, its version and its built-in catalog, also behind an interpreter", () => {
    const env = { PATH: process.env.PATH };
    const direct = locatePi([piBinary], { cwd: repoRoot, env });
    expect(direct?.version).toBe("0.73.1");
    expect(direct?.catalogFile).toMatch(/@mariozechner\/pi-ai\/dist\/models\.generated\.js$/);
    const cli = path.join(repoRoot, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
    expect(locatePi([process.execPath, cli], { cwd: repoRoot, env })?.catalogFile).toBe(direct?.catalogFile);
    expect(locatePi(["no-such-pi-binary"], { cwd: repoRoot, env })).toBeNull();
  });

  it("reads the built-in models and models.json (with comments and trailing commas)", async () => {
    const agentDir = path.join(scratch, "agent");
    mkdirSync(agentDir);
    writeFileSync(
      path.join(agentDir, "models.json"),
      '{ // local models\n "providers": { "local": { "baseUrl": "http://x//y", "apiKey": "LOCAL_KEY",\n' +
        ' "models": [ { "id": "m1" }, ], }, }, }\n',
    );
    const install = locatePi([piBinary], { cwd: repoRoot, env: { PATH: process.env.PATH } });
    const catalog = await loadPiModelCatalog(install, { HOME: scratch, PI_CODING_AGENT_DIR: agentDir });
    expect(catalog.problems).toEqual([]);
    expect(catalog.models).toContainEqual({ provider: "local", id: "m1" });
    expect(catalog.models).toContainEqual({ provider: "anthropic", id: "claude-sonnet-4-5" });
    expect(catalog.customProviders.get("local")).toEqual({ apiKey: "LOCAL_KEY" });
    expect(resolvePiModel("local/m1", catalog)).toEqual({ ok: true, model: "local/m1", verified: true });

    writeFileSync(path.join(agentDir, "models.json"), "{ broken");
    const broken = await loadPiModelCatalog(install, { HOME: scratch, PI_CODING_AGENT_DIR: agentDir });
    expect(broken.problems[0]).toContain("is not valid JSON");
  });
});

describe("resolvePiModel", () => {
  const catalog = catalogOf([
    ["anthropic", "claude-sonnet-4-5"],
    ["openrouter", "anthropic/claude-sonnet-4-5"],
    ["openai", "gpt-5"],
    ["azure", "gpt-5"],
  ]);

  it("takes an exact provider/id or a bare id one provider has, case-insensitively", () => {
    expect(resolvePiModel("Anthropic/Claude-Sonnet-4-5", catalog)).toMatchObject({
      ok: true,
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(resolvePiModel("openrouter/anthropic/claude-sonnet-4-5", catalog)).toMatchObject({
      model: "openrouter/anthropic/claude-sonnet-4-5",
    });
    expect(resolvePiModel("claude-sonnet-4-5", catalog)).toMatchObject({
      model: "anthropic/claude-sonnet-4-5",
    });
  });

  it("refuses ambiguous, fuzzy and suffixed names with a reason", () => {
    const ambiguous = resolvePiModel("gpt-5", catalog);
    expect(ambiguous).toEqual({
      ok: false,
      error: 'pi model "gpt-5" is ambiguous: openai/gpt-5, azure/gpt-5; name one as provider/id',
    });
    const fuzzy = resolvePiModel("sonnet", catalog);
    expect(fuzzy.ok).toBe(false);
    if (!fuzzy.ok) {
      expect(fuzzy.error).toContain(
        'pi has no model "sonnet": it is not in pi\'s built-in catalog (/x/models.generated.js)',
      );
      expect(fuzzy.error).toContain(
        "Similar: anthropic/claude-sonnet-4-5, openrouter/anthropic/claude-sonnet-4-5.",
      );
    }
    const suffixed = resolvePiModel("openai/gpt-5:high", catalog);
    expect(!suffixed.ok && suffixed.error).toContain(
      'Set `thinking: high` on the agent instead of a ":high" suffix.',
    );
  });

  it("passes a name through unchecked when the built-in catalog is unavailable", () => {
    expect(resolvePiModel("vendor/new-model", catalogOf([], null))).toEqual({
      ok: true,
      model: "vendor/new-model",
      verified: false,
    });
  });
});
