/**
 * A boxed send as bubblewrap arguments. The box's root is a fresh tmpfs holding the host's top-level
 * folders read-only (so `/sssf` can be made beside them), a private `/tmp` that shows read-only only
 * the host's entries the send names (in its argv or environment) and keeps new files to itself, then
 * every rule of the policy, shallowest first,
 * so a deeper rule wins (a git dir inside a writable working tree stays read-only), and the credential
 * paths last, hidden whatever else says. The agent's processes get no capabilities, their own pid
 * namespace and session, and all die when sssf does (`--die-with-parent` ends the namespace's init).
 */

import { type Dirent, readdirSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { BOX_ROOT } from "./box-paths.js";
import type { SendSandbox } from "./send-sandbox.js";

/** What the host looks like, read once per box: tests hand in a made-up one. */
export interface HostView {
  /** The entries of a folder (names and kinds), [] when unreadable. */
  list(folder: string): Dirent[];
  readlink(file: string): string | null;
  /** "dir", "file" or null (absent). */
  kind(file: string): "dir" | "file" | null;
}

export const realHost: HostView = {
  list(folder) {
    try {
      return readdirSync(folder, { withFileTypes: true });
    } catch {
      return [];
    }
  },
  readlink(file) {
    try {
      return readlinkSync(file);
    } catch {
      return null;
    }
  },
  kind(file) {
    try {
      return statSync(file).isDirectory() ? "dir" : "file";
    } catch {
      return null;
    }
  },
};

const inside = (root: string, file: string) =>
  file === root || file.startsWith(root.endsWith("/") ? root : `${root}/`);

/** Every path at which the host path `file` is seen inside the box: itself, and under each remapped writable folder. */
export function boxViews(sandbox: SendSandbox, file: string): string[] {
  const views = [file];
  for (const { host, box } of sandbox.writable) {
    if (host !== box && inside(host, file)) views.push(path.join(box, path.relative(host, file)));
  }
  return [...new Set(views)];
}

const depth = (file: string) => file.split("/").filter(Boolean).length;

/** Variables whose paths are never shown in the box: a credential agent's socket. */
const UNSHOWN_VARIABLES = new Set(["SSH_AUTH_SOCK", "GPG_AGENT_INFO"]);
const TMP_PATH = /\/tmp\/([^\s/:;,'"=]+)/g;

/**
 * The host's `/tmp` entries a send names: the first folder under `/tmp` of every path in its argv and
 * in its environment's values (a test's agent script, a config file handed by variable). A busy
 * `/tmp` (thousands of entries) is never bound entry by entry: each bind costs the box's start.
 */
export function namedTmpEntries(command: readonly string[], env: NodeJS.ProcessEnv = {}): string[] {
  const names = new Set<string>();
  const scan = (text: string) => {
    for (const match of text.matchAll(TMP_PATH)) {
      const name = match[1];
      if (name !== undefined && name !== "." && name !== "..") names.add(name);
    }
  };
  for (const arg of command) scan(arg);
  for (const [name, value] of Object.entries(env)) if (value && !UNSHOWN_VARIABLES.has(name)) scan(value);
  return [...names].sort();
}

function rootArgs(host: HostView, tmpEntries: readonly string[]): string[] {
  const args: string[] = [];
  for (const entry of host.list("/")) {
    const name = `/${entry.name}`;
    if (name === "/proc" || name === "/dev" || name === "/tmp" || name === BOX_ROOT) continue;
    if (entry.isSymbolicLink()) {
      const target = host.readlink(name);
      if (target !== null) args.push("--symlink", target, name);
    } else if (entry.isDirectory() || entry.isFile()) {
      args.push("--ro-bind", name, name);
    }
  }
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  // The host's /tmp entries the send names stay visible and read-only; what the agent makes in /tmp is its own.
  for (const entry of tmpEntries) {
    const name = `/tmp/${entry}`;
    const target = host.readlink(name);
    if (target !== null) args.push("--symlink", target, name);
    else args.push("--ro-bind-try", name, name);
  }
  return args;
}

/** bwrap's argv (without the program) that runs `command` in `sandbox`, in `cwd` (a path inside the box). */
export function bwrapArgs(
  sandbox: SendSandbox,
  command: readonly string[],
  cwd: string,
  options: { host?: HostView; root?: boolean; env?: NodeJS.ProcessEnv } = {},
): string[] {
  const host = options.host ?? realHost;
  const root = options.root ?? process.getuid?.() === 0;
  const args = rootArgs(host, namedTmpEntries(command, options.env));
  type Rule = { box: string; args: string[]; order: number };
  const rules: Rule[] = [];
  for (const { host: from, box } of sandbox.writable) {
    if (host.kind(from) === null) continue;
    rules.push({ box, args: ["--bind", from, box], order: 0 });
  }
  for (const file of sandbox.readOnly) {
    if (host.kind(file) === null) continue;
    for (const view of boxViews(sandbox, file))
      rules.push({ box: view, args: ["--ro-bind", file, view], order: 1 });
  }
  rules.sort((a, b) => depth(a.box) - depth(b.box) || a.order - b.order);
  for (const rule of rules) args.push(...rule.args);
  for (const file of sandbox.denyRead) {
    const kind = host.kind(file);
    if (kind === null) continue;
    for (const view of boxViews(sandbox, file)) {
      if (kind === "dir") args.push("--tmpfs", view, "--remount-ro", view);
      else args.push("--ro-bind", "/dev/null", view);
    }
  }
  if (sandbox.network !== "open") args.push("--unshare-net");
  // Root keeps every capability in a box unless told otherwise: with them it could remount the policy away.
  if (root) args.push("--cap-drop", "ALL");
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--new-session",
    "--die-with-parent",
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--chdir",
    cwd,
    "--",
    ...command,
  );
  return args;
}
