import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { geminiRuntime } from "../../../src/runtimes/gemini/index.js";
import { recordingObserver } from "../cli-harness.js";
import { CONTRACT_FILE, describeRuntimeContract, HANDOFF_FILE } from "../runtime-contract.js";
import {
  contentText,
  createGeminiWorld,
  declaredTools,
  type GeminiWorld,
  geminiContents,
  geminiWire,
  systemText,
} from "./gemini-world.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let world: GeminiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describeRuntimeContract({
  id: "gemini",
  runtime: geminiRuntime,
  open: createGeminiWorld,
  wire: geminiWire,
  session: {
    expect(w, first) {
      expect(first.result.nativeSessionId).toMatch(UUID);
      const calls = w.calls();
      expect(calls[1]?.path).toContain("/models/gemini-2.5-flash:streamGenerateContent");
      const history = geminiContents(calls[1]).map(contentText);
      expect(history).toContain(first.result.text);
      expect(history.at(-1)).toBe("TURN-2 go on");
      // The system prompt replaces gemini's own on every call; the allowlist decides the declared tools.
      expect(systemText(calls[1])).toBe("You are a test agent. Reply with JSON.");
      expect(declaredTools(calls[1]).sort()).toEqual([
        "read_file",
        "replace",
        "run_shell_command",
        "write_file",
      ]);
      expect(w.strayTmpFiles()).toEqual([]);
    },
  },
  toolCall: {
    tools: ["read", "write"],
    expect(w, { observer }) {
      expect(observer.toolCalls[0]?.args).toEqual({
        file_path: CONTRACT_FILE.path,
        content: CONTRACT_FILE.content,
      });
      expect(declaredTools(w.calls()[0]).sort()).toEqual(["read_file", "write_file"]);
    },
  },
  handoffWrite: {
    expect(_w, { observer }, layout) {
      const argv = observer.commands[0] ?? [];
      expect(argv[argv.indexOf("--include-directories") + 1]).toBe(layout.contextHandoff);
      expect(argv.filter((arg) => arg === "--include-directories")).toHaveLength(1);
      expect(observer.toolCalls[0]?.args).toEqual({
        file_path: path.join(layout.contextHandoff, HANDOFF_FILE.path),
        content: HANDOFF_FILE.content,
      });
    },
  },
  // gemini's workspace is the cwd plus --include-directories; it refuses any other path itself.
  outsideWrite: {
    expect(_w, { observer }) {
      expect(observer.toolCalls[0]?.result).toContain("Path not in workspace");
    },
  },
  // gemini's stream carries token counts but no price, and sssf prices nothing: cost is 0. Its
  // context is the last prompt plus the output.
  usage: {
    cost: () => 0,
    contextTokens: (counts) => (counts.input ?? 0) + (counts.cacheRead ?? 0) + (counts.output ?? 0),
  },
  bigPrompt: {
    expect(w, { request }) {
      const parts = geminiContents(w.calls()[0]).at(-1)?.parts ?? [];
      expect(parts.some((part) => part.text === request.prompt)).toBe(true);
    },
  },
  // gemini prints its init event within seconds, then nothing while the request hangs; 20 s of
  // silence is well above its startup time on a loaded machine.
  hang: {
    timeouts: { idleMs: 20_000, wallMs: 150_000 },
    expect(w) {
      expect(w.calls().map((call) => call.status)).toEqual([null]);
    },
  },
  unknownModel: {
    model: "gemini-9-ultra",
    expect(_w, { result }) {
      expect(result.error).toContain("model catalog of gemini-cli 0.61.0");
      expect(result.error).toContain("gemini-2.5-flash");
    },
  },
});

describe("gemini runtime against the real CLI", () => {
  it("writes its system prompt and policy files into the session dir", async () => {
    world = await createGeminiWorld();
    const request = world.request({ prompt: "TURN-1 files", tools: [] });
    const result = await geminiRuntime.send(request, recordingObserver());
    expect(result.error).toBeUndefined();
    expect(readFileSync(path.join(request.sessionDir, "gemini-system.md"), "utf8")).toBe(
      request.systemPrompt,
    );
    expect(readFileSync(path.join(request.sessionDir, "gemini-policy.toml"), "utf8")).toContain(
      'toolName = "*"',
    );
    expect(existsSync(path.join(request.sessionDir, "tmp"))).toBe(true);
    expect(declaredTools(world.calls()[0])).toEqual([]);
  }, 120_000);

  it("creates a missing handoff folder before gemini starts (gemini exits 1 on one that does not exist)", async () => {
    world = await createGeminiWorld();
    const handoff = path.join(world.root, "sessions/a1b2c3d4/context_handoff");
    const request = world.request({ prompt: "TURN-1 no folder yet", tools: [], contextHandoffDir: handoff });
    const result = await geminiRuntime.send(request, recordingObserver());
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(existsSync(handoff)).toBe(true);
  }, 120_000);
});
