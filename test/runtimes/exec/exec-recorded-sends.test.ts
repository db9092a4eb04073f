import { describe, expect, it } from "vitest";
import { execRecordedSends } from "../../../src/runtimes/exec/index.js";

describe("execRecordedSends: an exec agent's raw_output.jsonl read back", () => {
  it("splits the sends at each result line; a send cut before its result has no text", () => {
    const lines = [
      '{"type":"tool_call","tool":"bash","args":{"command":"ls"},"result":"a","ok":true,"duration_ms":3,"started_at":"2025-01-01T00:00:00.000Z","ended_at":"2025-01-01T00:00:00.003Z"}',
      "not json: kept in the file, ignored here",
      '{"type":"usage","input_tokens":10,"output_tokens":5,"cost":0.001}',
      '{"type":"usage","input_tokens":1,"output_tokens":1,"cache_read_tokens":2,"cost":0.0005}',
      '{"type":"result","text":"oops not json"}',
      '{"type":"result","text":"{\\"status\\":\\"success\\"}"}',
      '{"type":"usage","input_tokens":3,"output_tokens":0,"cost":0}',
    ];
    const sends = execRecordedSends(lines);
    expect(sends.map((send) => send.text)).toEqual(["oops not json", '{"status":"success"}', null]);
    expect(sends[0]?.usage).toEqual({
      inputTokens: 11,
      outputTokens: 6,
      cacheReadTokens: 2,
      cacheWriteTokens: 0,
      costUsd: 0.0015,
    });
    expect(sends[0]?.toolCalls.map((call) => [call.name, call.startedAt.toISOString(), call.ok])).toEqual([
      ["bash: ls", "2025-01-01T00:00:00.000Z", true],
    ]);
    expect(sends[1]?.toolCalls).toEqual([]);
    expect(sends[2]?.usage.inputTokens).toBe(3);
    expect(execRecordedSends([])).toEqual([]);
  });
});
