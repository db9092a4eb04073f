import http from "node:http";
import net from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hostPathOfBoxPath, hostPathsIn } from "../../src/sandbox/box-paths.js";
import { boxViews, bwrapArgs, type HostView, namedTmpEntries } from "../../src/sandbox/bwrap-args.js";
import { hostAllowed, startEgressProxy } from "../../src/sandbox/egress-proxy.js";
import { resolveAgentSandbox } from "../../src/sandbox/resolve-sandbox.js";
import { DEFAULT_SANDBOX } from "../../src/sandbox/sandbox-settings.js";
import type { SendSandbox } from "../../src/sandbox/send-sandbox.js";

const sandbox: SendSandbox = {
  backend: "bwrap",
  program: "/usr/bin/bwrap",
  hostCwd: "/repo/adws/adw_data/.worktrees/ab12",
  writable: [
    { host: "/repo/adws/adw_data/.worktrees/ab12", box: "/sssf/work/repo" },
    { host: "/repo/adws/adw_data/sessions/ab12/context_handoff", box: "/sssf/context_handoff" },
    {
      host: "/repo/adws/adw_data/sessions/ab12/agent/pi_sessions",
      box: "/repo/adws/adw_data/sessions/ab12/agent/pi_sessions",
    },
  ],
  readOnly: ["/repo/adws/adw_data/.worktrees/ab12/.git", "/repo/.git"],
  denyRead: ["/home/me/.ssh", "/home/me/.netrc"],
  network: "open",
};

const fakeHost: HostView = {
  list: () => [],
  readlink: () => null,
  kind: (file) =>
    file.endsWith(".netrc") || (file.endsWith("/.git") && file.includes("worktrees")) ? "file" : "dir",
};

describe("the bubblewrap arguments", () => {
  it("bind the working tree at its stable path, then its git file read-only over it, and hide credentials last", () => {
    const args = bwrapArgs(sandbox, ["/usr/bin/node", "agent.js"], "/sssf/work/repo", {
      host: fakeHost,
      root: false,
    });
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    const work = at("--bind", "/repo/adws/adw_data/.worktrees/ab12", "/sssf/work/repo");
    const gitFile = at("--ro-bind", "/repo/adws/adw_data/.worktrees/ab12/.git", "/sssf/work/repo/.git");
    expect(work).toBeGreaterThan(-1);
    expect(gitFile).toBeGreaterThan(work);
    expect(at("--ro-bind", "/repo/.git", "/repo/.git")).toBeGreaterThan(-1);
    expect(at("--tmpfs", "/home/me/.ssh", "--remount-ro", "/home/me/.ssh")).toBeGreaterThan(gitFile);
    expect(at("--ro-bind", "/dev/null", "/home/me/.netrc")).toBeGreaterThan(gitFile);
    expect(args).toContain("--die-with-parent");
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("--cap-drop");
    expect(args.slice(-4)).toEqual(["/sssf/work/repo", "--", "/usr/bin/node", "agent.js"]);
  });

  it("drop every capability as root, and cut the network unless it is open", () => {
    const args = bwrapArgs({ ...sandbox, network: [] }, ["x"], "/sssf/work/repo", {
      host: fakeHost,
      root: true,
    });
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args).toContain("--unshare-net");
  });

  it("show in the private /tmp only the host entries the send names, however busy the host's /tmp is", () => {
    const busy: HostView = {
      ...fakeHost,
      list: (folder) =>
        folder === "/tmp"
          ? Array.from(
              { length: 5000 },
              (_, i) => ({ name: `invoker-${i}`, isSymbolicLink: () => false }) as never,
            )
          : [],
      readlink: (file) => (file === "/tmp/linked" ? "/var/tmp/real" : null),
    };
    const args = bwrapArgs(sandbox, ["/usr/bin/node", "/tmp/fixture-1/agent.mjs"], "/sssf/work/repo", {
      host: busy,
      root: false,
      env: {
        FAKE_MODEL_SCRIPT: "/tmp/model-2/script.json",
        PATH: "/tmp/bin-3/bin:/usr/bin",
        NODE_OPTIONS: "--require=/tmp/hook-4/x.cjs",
        LINKED: "/tmp/linked/a",
        SSH_AUTH_SOCK: "/tmp/ssh-5/agent.1",
      },
    });
    const shown = args.flatMap((arg, i) => (arg === "--ro-bind-try" ? [args[i + 1]] : []));
    expect(shown).toEqual(["/tmp/bin-3", "/tmp/fixture-1", "/tmp/hook-4", "/tmp/model-2"]);
    expect(args.join(" ")).toContain("--symlink /var/tmp/real /tmp/linked");
    expect(args.join(" ")).not.toContain("ssh-5");
    expect(args.join(" ")).not.toContain("invoker-");
    expect(namedTmpEntries(["/tmp/../etc/passwd", "/tmp/./x", "tmp/y", "/tmpfoo/z"])).toEqual([]);
  });

  it("see a read-only path under every view of a writable folder", () => {
    expect(boxViews(sandbox, "/repo/adws/adw_data/.worktrees/ab12/.git")).toEqual([
      "/repo/adws/adw_data/.worktrees/ab12/.git",
      "/sssf/work/repo/.git",
    ]);
  });
});

describe("box paths", () => {
  it("map back to the host for the gates and the hooks, whatever follows them (fixed seed)", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,10}$/).filter((s) => s !== "." && s !== "..");
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (parts) => {
        const rel = parts.join("/");
        expect(hostPathOfBoxPath(`/sssf/work/repo/${rel}`, "/w", "/h")).toBe(`/w/${rel}`);
        expect(hostPathOfBoxPath(`/sssf/context_handoff/${rel}`, "/w", "/h")).toBe(`/h/${rel}`);
        expect(hostPathOfBoxPath(`/elsewhere/${rel}`, "/w", "/h")).toBe(`/elsewhere/${rel}`);
      }),
      { seed: 34, numRuns: 200 },
    );
    expect(
      hostPathsIn({ path: "/sssf/work/r/a.ts", list: ["/sssf/context_handoff/n.md", "x"] }, "/w", "/h"),
    ).toEqual({
      path: "/w/a.ts",
      list: ["/h/n.md", "x"],
    });
  });
});

describe("an agent's policy", () => {
  const inputs = {
    settings: { ...DEFAULT_SANDBOX },
    support: {
      available: true as const,
      backend: "bwrap" as const,
      program: "/usr/bin/bwrap",
      version: "bubblewrap 0.8.0",
    },
    repoRoot: "/repo",
    workTree: "/repo",
    gitPaths: ["/repo/.git"],
    dataDir: "/repo/adws/adw_data",
    contextHandoffDir: "/repo/adws/adw_data/sessions/ab/context_handoff",
    agentDirs: ["/repo/adws/adw_data/sessions/ab/agent/pi_sessions"],
    runtimeDirs: ["/home/me/.pi/agent"],
    home: "/home/me",
  };

  it("keeps the data folder read-only inside an in-place working tree, and a runtime's own folder readable", () => {
    const resolved = resolveAgentSandbox({
      ...inputs,
      settings: { ...DEFAULT_SANDBOX, denyRead: ["/home/me/.pi"] },
    });
    if (!resolved.boxed) throw new Error(resolved.reason);
    expect(resolved.sandbox.readOnly).toEqual(["/repo/.git", "/repo/adws/adw_data"]);
    expect(resolved.sandbox.denyRead).toContain("/home/me/.ssh");
    expect(resolved.sandbox.denyRead).not.toContain("/home/me/.pi");
    expect(resolved.boxCwd).toBe("/sssf/work/repo");
  });

  it("says why an agent is not boxed", () => {
    const off = resolveAgentSandbox({ ...inputs, settings: { ...DEFAULT_SANDBOX, mode: "off" } });
    expect(off).toMatchObject({ boxed: false, reason: "sandbox.mode is off" });
    const none = resolveAgentSandbox({
      ...inputs,
      support: { available: false, reason: "no bwrap", fix: "install it" },
    });
    expect(none).toMatchObject({ boxed: false, reason: "no bwrap", fix: "install it" });
  });
});

describe("the egress proxy", () => {
  it("matches hosts, wildcards and ports", () => {
    const entries = ["api.example.com", "*.models.dev", "127.0.0.1:8080", "[::1]:9000"];
    expect(hostAllowed(entries, "api.example.com", 443)).toBe(true);
    expect(hostAllowed(entries, "API.EXAMPLE.COM", 443)).toBe(true);
    expect(hostAllowed(entries, "evil-api.example.com", 443)).toBe(false);
    expect(hostAllowed(entries, "a.models.dev", 443)).toBe(true);
    expect(hostAllowed(entries, "models.dev", 443)).toBe(false);
    expect(hostAllowed(entries, "evilmodels.dev", 443)).toBe(false);
    expect(hostAllowed(entries, "127.0.0.1", 8080)).toBe(true);
    expect(hostAllowed(entries, "127.0.0.1", 8081)).toBe(false);
    expect(hostAllowed(entries, "[::1]", 9000)).toBe(true);
  });

  it("tunnels CONNECT to a listed host and refuses any other with 403", async () => {
    const upstream = net.createServer((socket) => socket.end("pong"));
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const port = (upstream.address() as net.AddressInfo).port;
    const refused: string[] = [];
    const proxy = await startEgressProxy([`127.0.0.1:${port}`], (target) => refused.push(target));
    const connect = (target: string) =>
      new Promise<string>((resolve) => {
        const request = http.request({ socketPath: proxy.socketPath, method: "CONNECT", path: target });
        request.on("connect", (response, socket, head) => {
          let text = `${response.statusCode} ${head.toString()}`;
          socket.on("data", (chunk) => {
            text += chunk.toString();
          });
          socket.on("end", () => resolve(text));
          socket.on("error", () => resolve(text));
        });
        request.on("response", (response) => resolve(`${response.statusCode}`));
        request.on("error", (error) => resolve(String(error)));
        request.end();
      });
    try {
      expect(await connect(`127.0.0.1:${port}`)).toBe("200 pong");
      expect(await connect(`127.0.0.1:${port + 1}`)).toMatch(/^403/);
      expect(await connect("example.com:443")).toMatch(/^403/);
      expect(refused).toEqual([`127.0.0.1:${port + 1}`, "example.com:443"]);
    } finally {
      await proxy.close();
      upstream.close();
    }
  });
});
