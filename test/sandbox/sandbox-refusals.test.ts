import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refusedPaths, sandboxRefusalsHook } from "../../src/engine/send/sandbox-refusals-hook.js";

const call = (result: string, ok = false, args: unknown = { command: "x" }) => ({
  tool: "bash",
  name: "bash: x",
  args,
  result,
  ok,
  startedAt: new Date(),
  endedAt: new Date(),
});

describe("a write the box refused", () => {
  it("is read from each tool's own wording", () => {
    const path = "/home/me/planted file.txt";
    const shapes = [
      `touch: cannot touch '${path}': Read-only file system`,
      `EROFS: read-only file system, open '${path}'`,
      `Error: EACCES: permission denied, open "${path}"`,
      `mkdir: cannot create directory ‘${path}’: Read-only file system`,
    ];
    for (const shape of shapes) expect(refusedPaths(shape), shape).toEqual([path]);
    expect(refusedPaths("bash: line 1: /etc/passwd: Read-only file system")).toEqual(["/etc/passwd"]);
    expect(refusedPaths("sh: 1: cannot create /root/x: Read-only file system")).toEqual(["/root/x"]);
    expect(refusedPaths("wrote 3 bytes to '/tmp/x'")).toEqual([]);
  });

  it("finds the path in any refusal line, whatever surrounds it (fixed seed)", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 5 }),
        fc.string({ maxLength: 40 }),
        (parts, noise) => {
          const file = `/${parts.join("/")}`;
          const text = `${noise.replace(/['"`‘’\n]/g, "")}\ncp: cannot create regular file '${file}': Read-only file system\n`;
          expect(refusedPaths(text)).toContain(file);
        },
      ),
      { seed: 34, numRuns: 300 },
    );
  });

  it("becomes one boundary finding per path on a boxed send, none on an unboxed one, never a failure", async () => {
    const info = { adwId: "a", agent: "b", phase: {} as never, attempt: 1, reason: "initial" as const };
    const boxed = await sandboxRefusalsHook.open({ ...info, sandboxed: true });
    boxed.onToolCall?.(call("touch: cannot touch '/x': Read-only file system"));
    boxed.onToolCall?.(call("touch: cannot touch '/x': Read-only file system"));
    boxed.onToolCall?.(call("EROFS", false, { path: "/y" }));
    const settled = await boxed.settle({ kind: "threw", error: null, toolCalls: [] });
    expect(settled.failure).toBeNull();
    expect(settled.findings.map((f) => [f.name, f.payload.path])).toEqual([
      ["boundary", "/x"],
      ["boundary", "/y"],
    ]);
    const open = await sandboxRefusalsHook.open({ ...info, sandboxed: false });
    open.onToolCall?.(call("touch: cannot touch '/x': Read-only file system"));
    expect((await open.settle({ kind: "threw", error: null, toolCalls: [] })).findings).toEqual([]);
  });
});

describe("an unquoted refused path with spaces", () => {
  it("is read whole after the shell's own words", () => {
    expect(refusedPaths("/bin/sh: 1: cannot create /tmp/out side/a b.txt: Read-only file system")).toEqual([
      "/tmp/out side/a b.txt",
    ]);
    expect(refusedPaths("bash: line 1: /etc/a b: Permission denied")).toEqual(["/etc/a b"]);
  });
});
