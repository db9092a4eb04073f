import { describe, expect, it } from "vitest";
import { codexArgs, planCodexTools, validateCodexTools } from "../../../src/runtimes/codex/args.js";
import type { CodexCatalog } from "../../../src/runtimes/codex/catalog.js";
import { type CodexConfig, readTomlStrings } from "../../../src/runtimes/codex/config.js";
import { createCodexParser, isModelRejection, usageSince } from "../../../src/runtimes/codex/events.js";
import { unwrapShell } from "../../../src/runtimes/codex/items.js";
import { resolveCodexModel } from "../../../src/runtimes/codex/models.js";
import { recordingObserver } from "../cli-harness.js";

const config = (overrides: Partial<CodexConfig> = {}): CodexConfig => ({
  home: "/h/.codex",
  file: "/h/.codex/config.toml",
  exists: true,
  mtimeMs: 1,
  model: undefined,
  modelProvider: "openai",
  modelCatalogJson: undefined,
  openaiBaseUrl: undefined,
  provider: {},
  ...overrides,
});
const catalog: CodexCatalog = {
  models: [
    {
      slug: "gpt-5.5",
      apply_patch_tool_type: "freeform",
      supported_reasoning_levels: [{ effort: "low" }, { effort: "high" }],
    },
  ],
  sources: ["bundled"],
};

describe("codex runtime pieces", () => {
  it("reads the string keys of config.toml by table", () => {
    const tables = readTomlStrings(
      'model = "gpt-5.5" # default\nprofile = \'work\'\n[profiles.work]\nmodel_provider = "local"\n[model_providers."local"]\nenv_key = "LOCAL_KEY"\nretries = 3\n',
    );
    expect(tables.get("")).toEqual({ model: "gpt-5.5", profile: "work" });
    expect(tables.get("profiles.work")).toEqual({ model_provider: "local" });
    expect(tables.get("model_providers.local")).toEqual({ env_key: "LOCAL_KEY" });
  });

  it("maps sssf tools onto codex's switches and names bad tools", () => {
    expect(planCodexTools([], true)).toEqual({
      shell: false,
      applyPatch: false,
      viewImage: false,
      sandbox: "read-only",
    });
    expect(planCodexTools(["grep"], true)).toMatchObject({ shell: true, sandbox: "read-only" });
    expect(planCodexTools(["edit"], true)).toMatchObject({
      shell: false,
      applyPatch: true,
      sandbox: "workspace-write",
    });
    expect(planCodexTools(["write"], false)).toMatchObject({ shell: true, applyPatch: false });
    expect(validateCodexTools(["read", "Bash"])).toContain('"Bash"');
    expect(validateCodexTools(["read", "ls"])).toBeNull();
  });

  it("makes the handoff folder a writable root of a writing sandbox only, before resume", () => {
    const args = (tools: string[], contextHandoffDir?: string) =>
      codexArgs({
        command: ["codex"],
        cwd: "/w",
        model: "",
        effort: null,
        plan: planCodexTools(tools, true),
        instructionsFile: "/s/i.md",
        catalogFile: null,
        threadId: "01a22baf-0000-7000-8000-000000000000",
        contextHandoffDir,
      });
    const writing = args(["write"], "/d/context_handoff");
    const at = writing.indexOf("--add-dir");
    expect(writing[at + 1]).toBe("/d/context_handoff");
    expect(at).toBeLessThan(writing.indexOf("resume"));
    expect(args(["read"], "/d/context_handoff")).not.toContain("--add-dir");
    expect(args(["write"])).not.toContain("--add-dir");
  });

  it("resolves models: strict on OpenAI's API, open on custom endpoints, efforts clamped to the model", () => {
    expect(resolveCodexModel("gpt-x", "off", catalog, config())).toMatchObject({ ok: false });
    const custom = resolveCodexModel("llama", "off", catalog, config({ modelProvider: "ollama" }));
    expect(custom).toEqual({ ok: true, choice: { entry: null, effort: null, applyPatch: false, notes: [] } });
    const known = resolveCodexModel("gpt-5.5", "off", catalog, config());
    expect(known).toMatchObject({ ok: true, choice: { effort: "low", applyPatch: true } });
    expect(resolveCodexModel("gpt-5.5", "xhigh", catalog, config())).toMatchObject({
      choice: { effort: "high" },
    });
    expect(resolveCodexModel("", "medium", catalog, config())).toMatchObject({
      choice: { applyPatch: "unknown" },
    });
  });

  it("turns cumulative counters into per-send usage", () => {
    const at = (input: number, cached: number, output: number) => ({
      input_tokens: input,
      cached_input_tokens: cached,
      cache_write_input_tokens: 0,
      output_tokens: output,
      reasoning_output_tokens: 0,
    });
    expect(usageSince(at(300, 50, 30), at(100, 20, 10))).toMatchObject({
      inputTokens: 170,
      cacheReadTokens: 30,
      outputTokens: 20,
    });
    expect(usageSince(at(50, 0, 5), at(100, 20, 10))).toMatchObject({ inputTokens: 50, outputTokens: 5 });
  });

  it("unwraps codex's shell wrapper and recognizes model rejections", () => {
    expect(unwrapShell(`/bin/bash -lc "printf '%s' \\"a\\" > x"`)).toBe(`printf '%s' "a" > x`);
    expect(unwrapShell("/bin/bash -lc 'ls -la'")).toBe("ls -la");
    expect(unwrapShell("ls")).toBe("ls");
    expect(isModelRejection("The model `gpt-q` does not exist", "gpt-q")).toBe(true);
    expect(isModelRejection("404 Not Found: no route", "gpt-q")).toBe(false);
  });

  it("reports a failed turn and a thread that is not the one asked for", () => {
    const parse = (lines: object[], expected: string | null) => {
      const parser = createCodexParser({
        observer: recordingObserver(),
        cwd: "/w",
        model: "m",
        modelHint: "",
        expectedThreadId: expected,
        baseline: undefined,
        onThread: () => {},
      });
      for (const line of lines) parser.line(JSON.stringify(line));
      return parser.finish();
    };
    const failed = parse(
      [
        { type: "thread.started", thread_id: "t1" },
        { type: "error", message: "Reconnecting... 1/5" },
        { type: "turn.failed", error: { message: "bad request" } },
      ],
      null,
    );
    expect(failed).toMatchObject({ error: "bad request", nativeSessionId: "t1", text: null });
    const other = parse([{ type: "thread.started", thread_id: "t2" }], "t1");
    expect(other).toMatchObject({ nativeSessionId: "t1" });
    expect(other.error).toContain("codex continued thread t2 instead of the requested t1");
  });
});
