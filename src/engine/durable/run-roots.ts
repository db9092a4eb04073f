import { realpathSync } from "node:fs";

/**
 * The folders a run's paths live under, as one attempt had them (docs/resume.md, "What the hash leaves
 * out"). A journal records them (wire names: snake_case) so that a resume where they have other
 * absolute paths (a moved repository, another cluster worker) still matches its steps, and hands on
 * results whose paths point where the files now are.
 */
export interface RunRoots {
  /** The run's root: its worktree (or the sub-folder of it the run started from), or the checkout in place. */
  run_root: string;
  /** The run's worktree, null in place. */
  worktree: string | null;
  /** The operator's checkout. */
  checkout: string;
  /** The session's folder. */
  session: string;
  /** The folder of every session. */
  sessions: string;
  /** sssf's data dir. */
  data_dir: string;
}

/** The order names win in when two roots are one folder: the most specific first. */
const NAMES = ["session", "run_root", "worktree", "sessions", "data_dir", "checkout"] as const;
type RootName = (typeof NAMES)[number];

/** Each root's spellings (as given and, when it differs, its real path), longest first, with its name. */
function spellings(roots: RunRoots): { path: string; name: RootName }[] {
  const seen = new Set<string>();
  const list: { path: string; name: RootName }[] = [];
  for (const name of NAMES) {
    const root = roots[name];
    if (root === null || root === undefined) continue;
    let real = root;
    try {
      real = realpathSync(root);
    } catch {
      // A folder that is gone (the journal's, before a move) has only the spelling recorded.
    }
    for (const spelling of [root, real]) {
      const clean = spelling.replace(/\/+$/, "");
      if (clean.length < 2 || seen.has(clean)) continue;
      seen.add(clean);
      list.push({ path: clean, name });
    }
  }
  return list.sort((a, b) => b.path.length - a.path.length);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A function replacing, in a string, every occurrence of one of `from`'s spellings (as a whole path:
 * not inside a longer name) by what `to` gives its root's name; identity when there is nothing to do.
 */
function replacer(from: RunRoots, to: (name: RootName) => string | null): (text: string) => string {
  const list = spellings(from).filter((entry) => to(entry.name) !== null);
  if (list.length === 0) return (text) => text;
  const byPath = new Map(list.map((entry) => [entry.path, entry.name]));
  const pattern = new RegExp(
    `(?<![\\w.-])(?:${list.map((entry) => escapeRegExp(entry.path)).join("|")})(?![\\w.-])`,
    "g",
  );
  return (text) =>
    text.includes("/") ? text.replace(pattern, (match) => to(byPath.get(match) as RootName) ?? match) : text;
}

/** `value` with every string (object keys included) passed through `map`; other values as they are. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[map(key)] = mapStrings(item, map);
  return out;
}

/**
 * `value` with every absolute path under one of `roots` written as `<name>/rest` (`<worktree>/src/x.ts`
 * for the worktree's `src/x.ts`): what a step's input hash is taken over, so it is the same wherever the
 * run's folders are.
 */
export function locate(value: unknown, roots: RunRoots | undefined): unknown {
  if (roots === undefined) return value;
  return mapStrings(
    value,
    replacer(roots, (name) => `<${name}>`),
  );
}

/**
 * `value` (a journaled result, written where `from` says) with every path under one of `from`'s roots
 * moved under the same root of `to`: a replayed result names the files where they are now.
 */
export function relocate<T>(value: T, from: RunRoots | undefined, to: RunRoots): T {
  if (from === undefined || NAMES.every((name) => from[name] === to[name])) return value;
  return mapStrings(
    value,
    replacer(from, (name) => to[name]),
  ) as T;
}
