import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { geminiRuntime } from "../../../src/runtimes/gemini/index.js";
import { geminiSessionUuid } from "../../../src/runtimes/gemini/session.js";
import { recordingObserver } from "../cli-harness.js";
import { createGeminiWorld, type GeminiWorld } from "./gemini-world.js";

let world: GeminiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("gemini runtime failures", () => {
  it("reads an API error from the stream, and keeps gemini's crash report in the session dir", async () => {
    world = await createGeminiWorld({
      steps: [{ match: { text: "TURN-1" }, error: { status: 400, message: "bad thing TEST" } }],
    });
    const observer = recordingObserver();
    const request = world.request({ prompt: "TURN-1 fail please" });
    const result = await geminiRuntime.send(request, observer);
    expect(result.ok).toBe(false);
    expect(result.errorKind).toBe("agent_error");
    expect(result.error).toContain("bad thing TEST");
    // gemini exits with the HTTP status modulo 256.
    expect(result.exitCode).toBe(400 % 256);
    const reports = readdirSync(path.join(request.sessionDir, "tmp"));
    expect(reports.some((name) => name.startsWith("gemini-client-error-"))).toBe(true);
    expect(world.strayTmpFiles()).toEqual([]);
  }, 120_000);

  it("moves to a fresh gemini session id when the first send died before the model answered", async () => {
    world = await createGeminiWorld({
      steps: [{ match: { text: "TURN-1" }, error: { status: 400, message: "refused" } }],
    });
    const logs: string[] = [];
    const observer = { ...recordingObserver(), onLog: (message: string) => logs.push(message) };
    const request = world.request({ prompt: "TURN-1 first" });
    const first = await geminiRuntime.send(request, observer);
    expect(first.ok).toBe(false);
    expect(first.nativeSessionId).toBe(geminiSessionUuid(request.sessionId, 0));

    // gemini now refuses both --session-id and --resume for that id: the runtime must not use it.
    const second = await geminiRuntime.send(
      world.request({ prompt: "TURN-2 again", resume: true, nativeSessionId: first.nativeSessionId }),
      observer,
    );
    expect(second.error).toBeUndefined();
    expect(second.nativeSessionId).toBe(geminiSessionUuid(request.sessionId, 1));
    expect(JSON.parse(second.text).markers).toEqual(["TURN-2"]);
    expect(logs.some((line) => line.includes("no resumable turn"))).toBe(true);

    const third = await geminiRuntime.send(
      world.request({ prompt: "TURN-3 more", resume: true, nativeSessionId: second.nativeSessionId }),
      observer,
    );
    expect(third.error).toBeUndefined();
    expect(third.nativeSessionId).toBe(second.nativeSessionId);
    expect(JSON.parse(third.text).markers).toEqual(["TURN-2", "TURN-3"]);
  }, 180_000);

  it("refuses unknown tools and a missing binary before starting gemini", async () => {
    world = await createGeminiWorld();
    const observer = recordingObserver();
    const tools = await geminiRuntime.send(world.request({ tools: ["read", "browse"] }), observer);
    expect(tools.errorKind).toBe("spawn_failed");
    expect(tools.error).toContain('"browse"');
    expect(tools.error).toContain("read, bash, edit, write, grep, find, ls");

    const missing = await geminiRuntime.send(world.request({ command: ["./no-such-gemini"] }), observer);
    expect(missing.errorKind).toBe("spawn_failed");
    expect(missing.error).toContain("./no-such-gemini not found");

    expect(observer.pids).toEqual([]);
    expect(world.calls()).toEqual([]);
  });

  it("accepts a model the user declared in gemini's settings", async () => {
    world = await createGeminiWorld();
    const file = path.join(world.home, ".gemini/settings.json");
    const settings = JSON.parse(readFileSync(file, "utf8"));
    settings.modelConfigs = {
      customAliases: { "my-tuned-model": { modelConfig: { model: "my-tuned-model" } } },
    };
    writeFileSync(file, `// comments are allowed here\n${JSON.stringify(settings)}`);
    const result = await geminiRuntime.send(world.request({ model: "my-tuned-model" }), recordingObserver());
    expect(result.error).toBeUndefined();
    expect(world.calls()[0]?.path).toContain("/models/my-tuned-model:streamGenerateContent");
  }, 120_000);
});
