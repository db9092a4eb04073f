import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  opencodeArgs,
  opencodeConfigContent,
  validateOpencodeTools,
  withHandoffDirectory,
} from "../../../src/runtimes/opencode/args.js";
import { readOpencodeConfig, stripJsonc } from "../../../src/runtimes/opencode/config-files.js";
import { createOpencodeStreamParser } from "../../../src/runtimes/opencode/events.js";
import { readJsLiteral } from "../../../src/runtimes/opencode/literal.js";
import { planOpencodeSession, recordOpencodeSession } from "../../../src/runtimes/opencode/session.js";
import type { AgentSendRequest } from "../../../src/runtimes/runtime.js";
import { recordingObserver } from "../cli-harness.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "sssf-opencode-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const line = (type: string, body: Record<string, unknown>) =>
  JSON.stringify({ type, timestamp: 1, sessionID: "ses_abc", ...body });

describe("opencode stream parser", () => {
  it("takes the last step's text, sums steps and pairs tool calls with their own times", () => {
    const observer = recordingObserver();
    const parser = createOpencodeStreamParser(observer, null);
    const step = (input: number, output: number, reasoning: number) => ({
      part: { tokens: { input, output, reasoning, cache: { read: 5, write: 1 } }, cost: 0.25 },
    });
    parser.line(line("step_start", { part: {} }));
    parser.line(line("text", { part: { text: "let me look" } }));
    const state = {
      status: "error",
      input: { command: "ls nope" },
      error: "exit 2",
      time: { start: 1000, end: 1500 },
    };
    parser.line(line("tool_use", { part: { tool: "bash", callID: "c1", state } }));
    parser.line(line("step_finish", step(10, 2, 3)));
    parser.line(line("step_start", { part: {} }));
    parser.line(line("text", { part: { text: "done" } }));
    parser.line(line("step_finish", step(20, 4, 0)));
    const result = parser.finish();
    expect(result).toMatchObject({ text: "done", nativeSessionId: "ses_abc", contextTokens: 30 });
    expect(result.error).toBeUndefined();
    expect(result.usage).toEqual({
      inputTokens: 30,
      outputTokens: 9,
      cacheReadTokens: 10,
      cacheWriteTokens: 2,
      costUsd: 0.5,
    });
    expect(observer.toolCalls).toMatchObject([
      { tool: "bash", name: "bash: ls nope", ok: false, result: "exit 2" },
    ]);
    expect(observer.toolCalls[0]?.startedAt.getTime()).toBe(1000);
    expect(observer.toolCalls[0]?.endedAt.getTime()).toBe(1500);
  });

  it("reports error events and an answer from another session than the resumed one", () => {
    const parser = createOpencodeStreamParser(recordingObserver(), "ses_other");
    parser.line("not json");
    parser.line(line("error", { error: { name: "UnknownError", data: { message: "boom", ref: "err_1" } } }));
    const result = parser.finish();
    expect(result.text).toBeNull();
    expect(result.error).toBe(
      "UnknownError: boom [ref err_1]; opencode answered in session ses_abc, not in the resumed session ses_other",
    );
  });
});

describe("opencode arguments", () => {
  it("maps tools to permissions, [] to none, and refuses unknown names", () => {
    expect(validateOpencodeTools(["read", "write", "ls"])).toEqual({
      ok: true,
      permission: { "*": "deny", read: "allow", edit: "allow", glob: "allow" },
    });
    expect(validateOpencodeTools([])).toEqual({ ok: true, permission: { "*": "deny" } });
    expect(validateOpencodeTools(["web"])).toMatchObject({ ok: false });
    // The user's deny patterns survive; `ask` (which `opencode run` can only auto-reject) does not.
    const user = { bash: { "*": "ask", "git push*": "deny" }, edit: "ask" };
    expect(validateOpencodeTools(["bash", "edit"], user)).toEqual({
      ok: true,
      permission: { "*": "deny", bash: { "*": "allow", "git push*": "deny" }, edit: "allow" },
    });
    const content = JSON.parse(
      opencodeConfigContent("/s/p.md", { "*": "deny" }, { agent: { mine: {} }, x: 1 }),
    );
    expect(content).toEqual({
      x: 1,
      agent: { mine: {}, sssf: expect.objectContaining({ mode: "primary", prompt: "{file:/s/p.md}" }) },
    });
    const args = opencodeArgs({ model: null, thinking: "off", session: "ses_1", title: "-t", cwd: "/w" });
    expect(args).toEqual([
      "run",
      "--format=json",
      "--agent=sssf",
      "--title=-t",
      "--dir=/w",
      "--variant=none",
      "--session=ses_1",
    ]);
  });

  it("opens the handoff folder, and no other outside path, through external_directory", () => {
    const permission = { "*": "deny", edit: "allow" } as const;
    expect(withHandoffDirectory(permission, "/d/sessions/a1/context_handoff/")).toEqual({
      "*": "deny",
      edit: "allow",
      external_directory: { "*": "deny", "/d/sessions/a1/context_handoff/*": "allow" },
    });
    expect(withHandoffDirectory(permission, undefined)).toEqual(permission);
  });
});

describe("opencode sessions", () => {
  const request = (overrides: Partial<AgentSendRequest>): AgentSendRequest =>
    ({
      sessionId: "s-1",
      resume: true,
      sessionDir: path.join(root, "sessions"),
      ...overrides,
    }) as AgentSendRequest;

  it("continues the recorded id, and starts one (with a note) when no send ever got one", () => {
    const fresh = planOpencodeSession(request({}));
    expect(fresh).toMatchObject({ ok: true, session: null });
    expect(fresh.ok && fresh.note).toContain("starting one");
    expect(recordOpencodeSession(path.join(root, "sessions"), "s-1", "ses_rec")).toBeNull();
    expect(planOpencodeSession(request({}))).toEqual({ ok: true, session: "ses_rec" });
    expect(planOpencodeSession(request({ nativeSessionId: "ses_given" }))).toEqual({
      ok: true,
      session: "ses_given",
    });
    expect(planOpencodeSession(request({ nativeSessionId: "--continue" }))).toMatchObject({ ok: false });
    expect(planOpencodeSession(request({ resume: false }))).toEqual({ ok: true, session: null });
  });
});

describe("opencode config and catalog readers", () => {
  it("reads JSONC config files up to the worktree and OPENCODE_CONFIG_CONTENT", () => {
    const work = path.join(root, "repo/sub");
    mkdirSync(path.join(root, "repo/.git"), { recursive: true });
    mkdirSync(work, { recursive: true });
    writeFileSync(
      path.join(root, "repo/opencode.jsonc"),
      '{ // c\n "provider": { "p": { "models": { "m1": {}, }, }, }, }',
    );
    writeFileSync(
      path.join(root, "opencode.json"),
      '{ "provider": { "outside": { "models": { "x": {} } } } }',
    );
    const env = {
      HOME: root,
      XDG_CONFIG_HOME: path.join(root, "cfg"),
      OPENCODE_CONFIG_CONTENT: '{"model":"p/m1"}',
    };
    const view = readOpencodeConfig(work, env);
    expect([...view.providers.keys()]).toEqual(["p"]);
    expect(view.defaultModel).toBe("p/m1");
    expect(view.files).toEqual([path.join(root, "repo/opencode.jsonc"), "OPENCODE_CONFIG_CONTENT"]);
    expect(stripJsonc('{"a": "//not a comment", /* x */ "b": [1,],}')).toBe(
      '{"a": "//not a comment",  "b": [1]}',
    );
  });

  it("reads minified object literals as data", () => {
    const text =
      '({a:{id:"a",env:["K"],ok:!0,no:!1,n:-1.5e3,s:\'it\\\'s\',u:"\\x41\\u00e9",v:void 0,"q-k":[]}})';
    expect(readJsLiteral(text, 1).value).toEqual({
      a: { id: "a", env: ["K"], ok: true, no: false, n: -1500, s: "it's", u: "Aé", v: undefined, "q-k": [] },
    });
    expect(() => readJsLiteral("{a:f()}")).toThrow();
  });
});
