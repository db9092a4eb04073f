import { describe, expect, it } from "vitest";
import {
  TOOL_NAME_MAX_CHARS,
  TOOL_RESULT_MAX_CHARS,
  toolCallName,
  toolResultSnippet,
} from "../../../src/runtimes/send-loop/tool-call-name.js";
import { redactSecrets } from "../../../src/util/secrets/redact.js";
import { redactedTail } from "../../../src/util/secrets/redacted-tail.js";
import { shortenText } from "../../../src/util/shorten-text.js";

const SECRET = `sk-ant-api03-${"Q7".repeat(30)}`;
/** Some of the secret past its fixed start: what must never be kept. */
const PIECE = SECRET.slice(13, 21);

describe("text cut for display or storage is redacted before the cut", () => {
  it("a tool call's name: a key that the 80-character cut would halve", () => {
    for (let at = 40; at < TOOL_NAME_MAX_CHARS; at += 3) {
      const name = toolCallName("bash", { command: `${"e".repeat(at)} ${SECRET} | tail` });
      expect(name).not.toContain(PIECE);
      expect(name.length).toBeLessThanOrEqual(TOOL_NAME_MAX_CHARS);
    }
    expect(toolCallName("bash", { command: `echo ${SECRET}` })).toBe(
      "bash: echo [redacted:anthropic-api-key]",
    );
  });

  it("a tool result's snippet: a key across the 2000-character cut", () => {
    const snippet = toolResultSnippet(`${"r".repeat(TOOL_RESULT_MAX_CHARS - 20)} ${SECRET} rest`);
    expect(snippet).not.toContain(PIECE);
    expect(snippet).toContain("[redacted:");
  });

  it("a value quoted in a message (shortenText)", () => {
    expect(shortenText(`value ${"v".repeat(20)} ${SECRET}`, 60)).not.toContain(PIECE);
    expect(shortenText("short", 60)).toBe("short");
  });

  it("the end of an output (redactedTail): a key the cut goes through is redacted whole first", () => {
    const text = `error: ${SECRET} was refused\nexit 1`;
    for (let max = 10; max < text.length; max += 7) {
      const tail = redactedTail(text, max);
      expect(tail).not.toContain(SECRET.slice(40, 48));
      expect(tail.length).toBeLessThanOrEqual(max);
      expect(redactSecrets(text).endsWith(tail)).toBe(true);
    }
    expect(redactedTail(`error: sk-ant-api03-${"x".repeat(40)} refused`, 15)).toBe("pi-key] refused");
    expect(redactedTail("no cut", 60)).toBe("no cut");
  });
});
