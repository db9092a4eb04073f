// The processes of `npm run bench -- cluster`: restate-server, a pool, workers of a given sssf build,
// `sssf` invocations, and the build of another revision (the "before" of the paired figures).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { root } from "./lib.mjs";

export const QUIET = { RESTATE_DISABLE_TELEMETRY: "true", DO_NOT_TRACK: "1", SCARF_ANALYTICS: "false" };
export const SERVER = path.join(
  root,
  `node_modules/@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
);

export function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(check, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(50);
  }
  throw new Error("bench cluster: timed out");
}

export function start(argv, env, cwd) {
  return spawn(argv[0], argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: "ignore" });
}

/** `sssf …args` of the build `cli`, to its end. */
export function runCli(cli, args, env, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** `sssf run … --detach` of the build `cli`: the adw_id, after up to three tries (a busy machine). */
export async function submit(cli, args, env, cwd) {
  for (let attempt = 1; ; attempt++) {
    const { code, out, err } = await runCli(cli, [...args, "--engine", "restate", "--detach"], env, cwd);
    if (code === 0 && out.trim() !== "") return out.trim();
    if (attempt === 3) throw new Error(`bench cluster: sssf run ${args.join(" ")} exited ${code}: ${err}`);
    await sleep(500);
  }
}

/** Runs `jobs` (functions returning promises) `width` at a time. */
export async function limited(jobs, width) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

/**
 * The CLI of revision `rev` of this repository, built in `dir` (a detached worktree sharing this
 * checkout's node_modules): what the cluster cost before a change, measured in the same run.
 */
export function buildRevision(rev, dir) {
  execFileSync("git", ["worktree", "add", "--quiet", "--detach", "--force", dir, rev], { cwd: root });
  if (!existsSync(path.join(dir, "node_modules")))
    symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  execFileSync(process.execPath, ["scripts/bundle.mjs"], { cwd: dir, stdio: "ignore" });
  return path.join(dir, "dist/cli/main.js");
}

export function removeRevision(dir) {
  execFileSync("git", ["worktree", "remove", "--force", dir], { cwd: root, stdio: "ignore" });
}

/** restate-server on free loopback ports (all three: ingress, admin and node-to-node). */
export async function startRestate(base) {
  const [ingressPort, adminPort, fabricPort] = [await freePort(), await freePort(), await freePort()];
  const proc = start(
    [
      SERVER,
      "--no-logo",
      "--listen-mode",
      "tcp",
      "--base-dir",
      path.join(base, "restate"),
      "--node-name",
      "n1",
    ],
    {
      ...QUIET,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabricPort}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabricPort}`,
      RESTATE_LOG_FILTER: "error",
    },
  );
  const admin = `http://127.0.0.1:${adminPort}`;
  await until(async () => (await fetch(`${admin}/health`)).ok);
  return { proc, ingress: `http://127.0.0.1:${ingressPort}`, admin };
}
