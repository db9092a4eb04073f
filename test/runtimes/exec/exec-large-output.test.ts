import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExecSandbox, sendExec } from "./exec-fixture.js";

let sandbox: ExecSandbox;
beforeEach(() => {
  sandbox = new ExecSandbox();
});
afterEach(() => sandbox.cleanup());

describe("exec runtime with large output", () => {
  it("delivers a 5 MB result text intact", async () => {
    const padding = 5 * 1024 * 1024;
    const agent = sandbox.scripted([{ reply: "THE END", result_padding_bytes: padding }]);
    const { result } = await sendExec(sandbox.request(agent.command));
    expect(result.ok).toBe(true);
    expect(result.text).toHaveLength(padding + "THE END".length);
    expect(result.text.endsWith("THE END")).toBe(true);
    expect(result.text.startsWith("The factory hums along")).toBe(true);
    const lastRaw = sandbox.rawLines().at(-1)!;
    expect(JSON.parse(lastRaw).text).toBe(result.text);
  });

  it("writes 100k noise lines to raw_output.jsonl", async () => {
    const agent = sandbox.scripted([{ reply: "quiet now", output_bytes: 100_000 * 100 }]);
    const started = Date.now();
    const { result } = await sendExec(sandbox.request(agent.command));
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ ok: true, text: "quiet now" });
    const lines = sandbox.rawLines();
    const noise = lines.filter((line) => line.startsWith("noise "));
    expect(noise).toHaveLength(100_000);
    expect(noise[0]).toHaveLength(99);
    expect(noise.at(-1)).toMatch(/^noise 99999 x+$/);
    expect(lines.at(-1)).toBe('{"type":"result","text":"quiet now"}');
    expect(elapsed).toBeLessThan(20_000);
  });

  it("appends to an existing raw_output.jsonl across sends", async () => {
    const agent = sandbox.scripted([{ reply: "one" }, { reply: "two" }]);
    await sendExec(sandbox.request(agent.command));
    await sendExec(sandbox.request(agent.command, { resume: true }));
    expect(sandbox.rawLines()).toEqual(['{"type":"result","text":"one"}', '{"type":"result","text":"two"}']);
  });
});
