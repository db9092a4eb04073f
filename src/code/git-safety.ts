/**
 * The one rule every git command sssf starts obeys: git runs no program that the repository, the
 * user's git config or the environment names (docs/git-safety.md). Anyone who can write a config file
 * git reads — an agent writing `.git/config`, `config.worktree`, `~/.gitconfig` or a file those include
 * — could otherwise make sssf's own `git status` run a `core.fsmonitor`, a filter driver, a hook…
 *
 * How: before a command, git's config is listed (`git config --list --includes`, which runs nothing)
 * and every key that names a program is set again, last, to a value that runs none, through
 * `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (command-line scope: it wins over every
 * file). Fixed overrides turn off what needs no key to act (hooks, fsmonitor, signing, submodule
 * recursion), and the environment variables that make git run programs or read other config are
 * removed first. The listing is kept while none of the files it came from changed (their dev, inode,
 * size, mtime and ctime); a config with `include.path` or `includeIf` is listed again for every command.
 *
 * `run-git.ts` applies this to every command; nothing else in src/
 * starts git (test/code/git-spawn-sites.test.ts).
 */
import path from "node:path";
import {
  type ConfigEntry,
  type ConfigFiles,
  configFiles,
  provable,
  signatureOf,
} from "./git-config-files.js";

export type { ConfigEntry, ConfigFiles } from "./git-config-files.js";
export { configFiles } from "./git-config-files.js";

/** Where sssf's git looks for hooks: not a folder, so git finds none (`/dev/null/pre-commit` is no file). */
export const NEUTRAL_HOOKS_PATH = "/dev/null";

/** The listing every decision is made from: scope, origin, key and value of every entry, NUL-separated. */
export const CONFIG_LISTING_ARGS: readonly string[] = [
  "config",
  "--null",
  "--list",
  "--includes",
  "--show-scope",
  "--show-origin",
];

/**
 * Environment variables removed from every git command's environment: each makes git run a program
 * (`GIT_EXTERNAL_DIFF`, `GIT_SSH`…), find its own programs elsewhere (`GIT_EXEC_PATH`), or read config
 * the listing would not see (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`, `GIT_CONFIG`). Those that
 * select which files are read (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `HOME`…) stay: the listing
 * runs under them too.
 */
export const REMOVED_ENV: readonly string[] = [
  "GIT_EXTERNAL_DIFF",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_SSH_VARIANT",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_ALLOW_PROTOCOL",
];

/** Prefixes of removed variables: command-line config by number, and git's test switches (`GIT_TEST_FSMONITOR`). */
const REMOVED_ENV_PREFIXES = ["GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_TEST_"];

/**
 * Set on every git command after the removal. Each wins over the config key of the same purpose:
 * `GIT_PAGER=cat` and `GIT_EDITOR=:` / `GIT_SEQUENCE_EDITOR=:` are git's own "none"; an empty
 * `GIT_PROXY_COMMAND` makes git ignore `core.gitProxy` (it takes the first value it finds, so a later
 * config override could not) and connect without a proxy; no terminal prompt for credentials.
 */
export const SET_ENV: Readonly<Record<string, string>> = {
  GIT_PAGER: "cat",
  GIT_EDITOR: ":",
  GIT_SEQUENCE_EDITOR: ":",
  GIT_PROXY_COMMAND: "",
  GIT_TERMINAL_PROMPT: "0",
};

/** Overrides on every command, configured or not (hooks run without any key; the rest are booleans). */
export const FIXED_OVERRIDES: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", NEUTRAL_HOOKS_PATH],
  // An empty helper empties the list of helpers, every URL's included.
  ["credential.helper", ""],
  // `ext::` URLs run the command they name (a remote's URL, or one `url.*.insteadOf` rewrote).
  ["protocol.ext.allow", "never"],
  // Signing and verifying run gpg.program / gpg.ssh.program.
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["push.gpgSign", "false"],
  ["log.showSignature", "false"],
  ["merge.verifySignatures", "false"],
  // A submodule is another repository whose config no listing saw: git never enters one for sssf.
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["push.recurseSubmodules", "no"],
  ["diff.submodule", "short"],
  ["status.submoduleSummary", "false"],
];

/** Two-part keys (`section.name`, lower case) that name a program, and the value that runs none. */
const PLAIN_KEYS: Readonly<Record<string, string>> = {
  "core.fsmonitor": "false",
  "core.hookspath": NEUTRAL_HOOKS_PATH,
  // What git runs with no key set: `ssh` found on PATH (an empty value would break ssh remotes).
  "core.sshcommand": "ssh",
  "core.pager": "cat",
  "core.editor": ":",
  "core.askpass": "",
  "core.alternaterefscommand": "",
  "sequence.editor": ":",
  "credential.helper": "",
  "diff.external": "",
  "gpg.program": "",
  "uploadpack.packobjectshook": "",
  "interactive.difffilter": "",
  "imap.tunnel": "",
  "instaweb.httpd": "",
  "web.browser": "",
  "sendemail.sendmailcmd": "",
  "sendemail.smtpserver": "",
  "sendemail.tocmd": "",
  "sendemail.cccmd": "",
  "sendemail.headercmd": "",
};

/** Three-part keys (`section.<subsection>.name`): section and name (lower case) → the value that runs none. */
const DRIVER_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  filter: { clean: "", smudge: "", process: "", required: "false" },
  diff: { textconv: "", command: "" },
  merge: { driver: "" },
  credential: { helper: "" },
  gpg: { program: "", defaultkeycommand: "" },
  // `remote.<name>.uploadpack` / `receivepack`: git takes the first, so no override can win; commands
  // that use them get `--upload-pack` / `--receive-pack` instead (`safeArgs`).
  remote: { vcs: "" },
  difftool: { cmd: "", path: "" },
  mergetool: { cmd: "", path: "" },
  guitool: { cmd: "" },
  browser: { cmd: "", path: "" },
  man: { cmd: "", path: "" },
  tar: { command: "" },
  // Hooks defined in config (git 2.46 and later): `hook.<name>.command`.
  hook: { command: "" },
  submodule: { update: "none" },
  sendemail: { sendmailcmd: "", smtpserver: "", tocmd: "", cccmd: "", headercmd: "" },
};

/**
 * The value that makes `key` (as `git config --list` prints it: section and name in lower case, the
 * subsection as written) run no program, or null when the key runs none. `pager.<command>` may name a
 * pager program: it is turned off.
 */
export function neutralValue(key: string): string | null {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first <= 0 || last === key.length - 1) return null;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  if (first === last) {
    if (section === "pager") return "false";
    return PLAIN_KEYS[`${section}.${name}`] ?? null;
  }
  return DRIVER_KEYS[section]?.[name] ?? null;
}

/** Parses `git config --null --list --show-scope --show-origin` output. */
export function parseConfigListing(output: string): ConfigEntry[] {
  const fields = output.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i] as string;
    const origin = fields[i + 1] as string;
    const pair = fields[i + 2] as string;
    const newline = pair.indexOf("\n");
    entries.push({
      scope,
      origin,
      key: newline < 0 ? pair : pair.slice(0, newline),
      value: newline < 0 ? null : pair.slice(newline + 1),
    });
  }
  return entries;
}

/** What one listing says for the commands run under it. */
export interface SafetyView {
  /** Every override, fixed ones first, then one per configured key that names a program. */
  overrides: readonly (readonly [string, string])[];
  /**
   * Options a command talking to a remote needs: git takes the FIRST `remote.<name>.uploadpack` and
   * `receivepack` it reads, so no later override wins; `--upload-pack` / `--receive-pack` do.
   */
  transport: { uploadPack: boolean; receivePack: boolean };
  /** `core.hooksPath` as the files configure it (the hooks the user's own git runs), or null. */
  hooksPath: string | null;
}

/** The overrides for a listing: the fixed ones, then each configured program key with its neutral value. */
export function viewOf(entries: readonly ConfigEntry[]): SafetyView {
  const overrides: (readonly [string, string])[] = [...FIXED_OVERRIDES];
  const seen = new Set<string>();
  let hooksPath: string | null = null;
  const transport = { uploadPack: false, receivePack: false };
  for (const { scope, key, value } of entries) {
    // Command-line entries are sssf's own: the environment that could carry others' was emptied.
    if (scope === "command") continue;
    const lower = key.toLowerCase();
    if (lower === "core.hookspath") hooksPath = value;
    if (lower.startsWith("remote.") && lower.endsWith(".uploadpack")) transport.uploadPack = true;
    if (lower.startsWith("remote.") && lower.endsWith(".receivepack")) transport.receivePack = true;
    const neutral = neutralValue(key);
    if (neutral === null || seen.has(key)) continue;
    seen.add(key);
    overrides.push([key, neutral]);
  }
  return { overrides, hooksPath, transport };
}

/** Commands that fetch over a transport, and the one that pushes. */
const FETCHING = new Set(["fetch", "pull", "ls-remote", "clone"]);

/**
 * `args` with the transport options `view` calls for, right after the subcommand: `--upload-pack`
 * for a fetch, `--receive-pack` for a push, naming git's own programs, when config names others.
 */
export function safeArgs(args: readonly string[], view: SafetyView): readonly string[] {
  const [command, ...rest] = args;
  if (command === undefined) return args;
  if (view.transport.uploadPack && FETCHING.has(command))
    return [command, "--upload-pack=git-upload-pack", ...rest];
  if (view.transport.receivePack && command === "push")
    return [command, "--receive-pack=git-receive-pack", ...rest];
  return args;
}

/** A command made safe: its arguments and its whole environment. */
export interface SafeCommand {
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

function commandOf(args: readonly string[], env: NodeJS.ProcessEnv, view: SafetyView): SafeCommand {
  return { args: safeArgs(args, view), env: applySafety(env, view.overrides) };
}

/**
 * `env` without the removed variables, with `SET_ENV`, then `overrides` as `GIT_CONFIG_COUNT`,
 * `GIT_CONFIG_KEY_n` and `GIT_CONFIG_VALUE_n`. `env` is not changed.
 */
export function applySafety(
  env: NodeJS.ProcessEnv,
  overrides: readonly (readonly [string, string])[],
): NodeJS.ProcessEnv {
  const safe = scrubGitEnv(env);
  overrides.forEach(([key, value], index) => {
    safe[`GIT_CONFIG_KEY_${index}`] = key;
    safe[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  safe.GIT_CONFIG_COUNT = String(overrides.length);
  return safe;
}

/** `env` without the removed variables and with `SET_ENV`. */
export function scrubGitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const safe: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || REMOVED_ENV.includes(name)) continue;
    if (REMOVED_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    safe[name] = value;
  }
  return Object.assign(safe, SET_ENV);
}

/** The environment the listing itself runs under: the removals, `SET_ENV` and the fixed overrides. */
export function listingEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return applySafety(env, FIXED_OVERRIDES);
}

/** Listings kept, by signature; bounded (a process sees a few repositories). */
const kept = new Map<string, Promise<SafetyView>>();
/** Views of listings that have resolved, for the synchronous path. */
const settledViews = new WeakMap<Promise<SafetyView>, SafetyView>();
const KEPT_MAX = 64;
/** The last view seen for each directory, for `configuredHooksPath`. */
const lastViews = new Map<string, SafetyView>();

function remember(cwd: string, view: SafetyView): SafetyView {
  if (lastViews.size >= KEPT_MAX) lastViews.clear();
  lastViews.set(path.resolve(cwd), view);
  return view;
}

/** The listing for `cwd`: reads git's answer into a view and says whether it may be kept. */
function settle(cwd: string, output: string, files: ConfigFiles | null): { view: SafetyView; keep: boolean } {
  const entries = parseConfigListing(output);
  const view = remember(cwd, viewOf(entries));
  return { view, keep: files !== null && provable(entries, files) };
}

/**
 * `git args` in `cwd` made safe: `env` with the removals, `SET_ENV` and every override its config
 * calls for, and `args` with the transport options it calls for. `list` runs `git config CONFIG_LISTING_ARGS` in `cwd` under the
 * environment given and resolves to its stdout (rejects when git fails: then the command must not run).
 */
export async function safeGitCommand(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  list: (env: NodeJS.ProcessEnv) => Promise<string>,
): Promise<SafeCommand> {
  const files = configFiles(cwd, env);
  const signed = files === null ? null : signatureOf(files, env);
  const signature = signed?.text ?? null;
  const known = signature === null ? undefined : kept.get(signature);
  if (known !== undefined) return commandOf(args, env, remember(cwd, await known));
  const reading = list(listingEnv(env)).then((output) => {
    const { view, keep } = settle(cwd, output, files);
    settledViews.set(reading, view);
    if ((!keep || signed?.racy) && signature !== null && kept.get(signature) === reading)
      kept.delete(signature);
    return view;
  });
  if (signature !== null) {
    if (kept.size >= KEPT_MAX) kept.clear();
    // Commands started while this listing runs share it.
    kept.set(signature, reading);
    // A failed listing is not kept: the next command asks again.
    reading.catch(() => {
      if (kept.get(signature) === reading) kept.delete(signature);
    });
  }
  return commandOf(args, env, await reading);
}

/** Synchronous `safeGitCommand`; `list` throws when git fails. */
export function safeGitCommandSync(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  list: (env: NodeJS.ProcessEnv) => string,
): SafeCommand {
  const files = configFiles(cwd, env);
  const signed = files === null ? null : signatureOf(files, env);
  const signature = signed?.text ?? null;
  const known = signature === null ? undefined : kept.get(signature);
  const settled = known === undefined ? null : (settledViews.get(known) ?? null);
  if (settled !== null) return commandOf(args, env, remember(cwd, settled));
  const { view, keep } = settle(cwd, list(listingEnv(env)), files);
  if (keep && signature !== null && !signed?.racy) {
    const done = Promise.resolve(view);
    settledViews.set(done, view);
    if (kept.size >= KEPT_MAX) kept.clear();
    kept.set(signature, done);
  }
  return commandOf(args, env, view);
}

/**
 * `core.hooksPath` as the config files set it for `cwd` (the hooks the user's own git runs there),
 * null when unset, undefined when no git command ran in `cwd` yet.
 */
export function configuredHooksPath(cwd: string): string | null | undefined {
  return lastViews.get(path.resolve(cwd))?.hooksPath;
}

/** Forgets every kept listing (tests; a config changed in a way its files' times cannot show). */
export function forgetGitSafety(): void {
  kept.clear();
  lastViews.clear();
}
