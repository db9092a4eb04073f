/**
 * Whether this machine can box an agent, and with what: bubblewrap on Linux, `sandbox-exec` on macOS.
 * A found program is also tried once (a bwrap that cannot make namespaces is as good as none), and the
 * answer is kept for the process. Never throws.
 */

import { spawnSync } from "node:child_process";
import { findExecutable } from "../util/find-executable.js";
import type { SandboxBackend } from "./send-sandbox.js";

export type SandboxSupport =
  | { available: true; backend: SandboxBackend; program: string; version: string }
  | { available: false; reason: string; fix: string };

const PROBE_TIMEOUT_MS = 10_000;

let cached: SandboxSupport | undefined;

/** This machine's sandbox, probed on first use. */
export function sandboxSupport(): SandboxSupport {
  cached ??= probe(process.platform, process.env);
  return cached;
}

/** Forgets the probed answer (tests that change PATH). */
export function resetSandboxSupport(): void {
  cached = undefined;
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? ""
  );
}

export function probe(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): SandboxSupport {
  if (platform === "linux") return probeBwrap(env);
  if (platform === "darwin") return probeSeatbelt();
  return {
    available: false,
    reason: `sssf has no OS sandbox for ${platform}`,
    fix: "run on Linux (bubblewrap) or macOS (sandbox-exec), or set sandbox.mode: off",
  };
}

/** `SSSF_BWRAP` names the bubblewrap program when it is not `bwrap` on PATH. */
export const BWRAP_ENV = "SSSF_BWRAP";

function probeBwrap(env: NodeJS.ProcessEnv): SandboxSupport {
  const named = env[BWRAP_ENV];
  const program = named ? findExecutable(named, { env }) : findExecutable("bwrap", { env });
  if (program === null && named) {
    return {
      available: false,
      reason: `${BWRAP_ENV}=${named} is not an executable file`,
      fix: `point ${BWRAP_ENV} at bubblewrap's bwrap, unset it to use bwrap from PATH, or set sandbox.mode: off`,
    };
  }
  if (program === null) {
    return {
      available: false,
      reason: "bubblewrap (bwrap) is not installed",
      fix: "install the bubblewrap package (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap), or set sandbox.mode: off",
    };
  }
  const tried = spawnSync(
    program,
    [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-pid",
      "--die-with-parent",
      "--",
      "/bin/sh",
      "-c",
      ":",
    ],
    { encoding: "utf8", timeout: PROBE_TIMEOUT_MS, stdio: ["ignore", "ignore", "pipe"] },
  );
  if (tried.error !== undefined || tried.status !== 0) {
    const said =
      firstLine(tried.stderr ?? "") || (tried.error?.message ?? `exit ${tried.status ?? tried.signal}`);
    const namespaces = /namespace|uid map|Operation not permitted|Permission denied/i.test(said);
    return {
      available: false,
      reason: `${program} cannot make a sandbox here: ${said}`,
      fix: namespaces
        ? "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or set sandbox.mode: off"
        : "check that bubblewrap works (bwrap --ro-bind / / /bin/true), or set sandbox.mode: off",
    };
  }
  const version = spawnSync(program, ["--version"], { encoding: "utf8", timeout: PROBE_TIMEOUT_MS });
  return {
    available: true,
    backend: "bwrap",
    program,
    version: firstLine(version.stdout ?? "") || "bubblewrap",
  };
}

function probeSeatbelt(): SandboxSupport {
  const program = "/usr/bin/sandbox-exec";
  const tried = spawnSync(program, ["-p", "(version 1)(allow default)", "/usr/bin/true"], {
    encoding: "utf8",
    timeout: PROBE_TIMEOUT_MS,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (tried.error !== undefined || tried.status !== 0) {
    return {
      available: false,
      reason: `sandbox-exec cannot make a sandbox here: ${firstLine(tried.stderr ?? "") || tried.error?.message || `exit ${tried.status}`}`,
      fix: "check that /usr/bin/sandbox-exec runs, or set sandbox.mode: off",
    };
  }
  return { available: true, backend: "seatbelt", program, version: "sandbox-exec" };
}
