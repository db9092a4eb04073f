/**
 * Which files git reads config from for a command, and what identifies their state: git-safety.ts
 * keeps a listing while none of them changed, and lists again when it cannot prove where every entry
 * came from (an include, another repository, a file it did not expect).
 */
import { type BigIntStats, existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** One entry of the listing. */
export interface ConfigEntry {
  scope: string;
  /** `file:<path>` (a path relative to the work tree's top level for the repository's own files), `command line:`… */
  origin: string;
  key: string;
  /** null for a key written without `=` (a boolean true). */
  value: string | null;
}

/** Variables that choose which config files git reads or where it finds the repository. */
const LOCATING_ENV = [
  "HOME",
  "XDG_CONFIG_HOME",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
];

/** The system config as git reports it: learned from a listing's `system` entries. */
let systemConfig = "/etc/gitconfig";

/** The repository's git dir and common dir as git would find them from `cwd`, or null outside one. */
function discover(cwd: string): { top: string; gitDir: string; commonDir: string } | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, ".git");
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    let gitDir: string | null = null;
    if (stat?.isDirectory()) {
      const valid =
        existsSync(path.join(dotGit, "HEAD")) &&
        (existsSync(path.join(dotGit, "commondir")) ||
          (existsSync(path.join(dotGit, "objects")) && existsSync(path.join(dotGit, "refs"))));
      if (valid) gitDir = dotGit;
    } else if (stat?.isFile()) {
      const match = /^gitdir: (.+?)\r?\n?$/.exec(readText(dotGit) ?? "");
      if (match === null) return null;
      gitDir = path.resolve(dir, match[1] as string);
    }
    if (gitDir !== null) {
      const common = readText(path.join(gitDir, "commondir"))?.trim();
      const commonDir = common ? path.resolve(gitDir, common) : gitDir;
      return { top: dir, gitDir, commonDir };
    }
    if (path.dirname(dir) === dir) return null;
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** The files git reads config from for a command in `cwd` under `env`, by role; null when they cannot be told. */
export function configFiles(cwd: string, env: NodeJS.ProcessEnv): ConfigFiles | null {
  if (env.GIT_DIR !== undefined || env.GIT_COMMON_DIR !== undefined || env.GIT_WORK_TREE !== undefined)
    return null;
  const home = env.HOME;
  const system = truthy(env.GIT_CONFIG_NOSYSTEM) ? [] : [env.GIT_CONFIG_SYSTEM ?? systemConfig];
  const xdg = env.XDG_CONFIG_HOME ? path.join(env.XDG_CONFIG_HOME, "git", "config") : null;
  const global =
    env.GIT_CONFIG_GLOBAL !== undefined
      ? [env.GIT_CONFIG_GLOBAL]
      : [
          ...(xdg !== null ? [xdg] : home ? [path.join(home, ".config", "git", "config")] : []),
          ...(home ? [path.join(home, ".gitconfig")] : []),
        ];
  let repo: ReturnType<typeof discover>;
  try {
    repo = discover(cwd);
  } catch {
    return null; // a folder that is not one, or one we may not enter: git will say
  }
  const local = repo
    ? [
        path.join(repo.commonDir, "config"),
        path.join(repo.commonDir, "config.worktree"),
        path.join(repo.gitDir, "config.worktree"),
      ]
    : [];
  return { system, global, local, top: repo?.top ?? null };
}

/** Config files by role (absolute or as the environment names them); `top` is where relative local origins start. */
export interface ConfigFiles {
  system: string[];
  global: string[];
  local: string[];
  top: string | null;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(?:1|true|yes|on)$/i.test(value);
}

/**
 * A file changed this recently may change again within the same timestamp tick without its size
 * changing; a listing taken now is not kept (git's own "racily clean" problem).
 */
const RACY_MS = 100;

/** What identifies the config state, and whether it is too fresh to keep. */
export interface Signature {
  text: string;
  racy: boolean;
}

/**
 * What identifies the config state: each file's identity and times by role (not its path, so a linked
 * worktree without its own config shares its checkout's listing) and the locating variables.
 */
export function signatureOf(files: ConfigFiles, env: NodeJS.ProcessEnv): Signature {
  let racy = false;
  const now = Date.now();
  const statKey = (file: string): string => {
    let stat: BigIntStats | undefined;
    try {
      stat = statSync(file, { bigint: true, throwIfNoEntry: false });
    } catch {
      racy = true; // unreadable (a folder we may not enter): never kept
      return "?";
    }
    if (stat === undefined) return "-";
    if (now - Number(stat.mtimeMs) < RACY_MS || now - Number(stat.ctimeMs) < RACY_MS) racy = true;
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  };
  const parts = [
    ...files.system.map((file) => `s ${statKey(file)}`),
    ...files.global.map((file) => `g ${statKey(file)}`),
    ...files.local.map((file) => `l ${statKey(file)}`),
    ...LOCATING_ENV.map((name) => `${name}=${env[name] ?? ""}`),
  ];
  return { text: parts.join("\n"), racy };
}

/**
 * True when `entries` came only from `files` and from no include: only then does an unchanged set of
 * those files mean an unchanged listing. A system file at another path than assumed is learned for the
 * next command.
 */
export function provable(entries: readonly ConfigEntry[], files: ConfigFiles): boolean {
  let ok = true;
  let sawLocal = false;
  for (const { scope, origin, key } of entries) {
    if (scope === "command") continue;
    const lower = key.toLowerCase();
    if (lower.startsWith("include.") || lower.startsWith("includeif.")) return false;
    if (!origin.startsWith("file:")) return false;
    const file = origin.slice("file:".length);
    if (scope === "system") {
      if (!files.system.includes(file)) {
        systemConfig = file;
        ok = false;
      }
    } else if (scope === "global") {
      if (!files.global.includes(file)) ok = false;
    } else if (scope === "local" || scope === "worktree") {
      sawLocal = true;
      if (files.top === null || !files.local.includes(path.resolve(files.top, file))) ok = false;
    } else ok = false;
  }
  // git read no repository config while one we would key on has entries: it found another repository.
  if (!sawLocal && files.local.some((file) => (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0))
    return false;
  return ok;
}
