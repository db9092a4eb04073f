/**
 * Every config problem in one pass: when the schema refuses a config, the fields it refused are
 * taken out of a copy (an agent whose name is unusable is set aside whole) until the rest parses, so
 * the semantic checks (duplicate names, prompt files, runtimes…) still run on everything the schema
 * accepted. Problems those checks find under a field that was taken out are dropped: they would be
 * about a stand-in, not about the file.
 */
import type { z } from "zod";
import type { ConfigProblem } from "../errors/config-error.js";
import { configIssueMessage } from "../util/zod-issues.js";
import { resolveConfig } from "./config-resolve.js";
import { type ConfigWire, configWireSchema } from "./config-schema.js";

type Segment = string | number;
type Path = readonly Segment[];

/** Rounds of taking fields out before giving up on the semantic pass. */
const MAX_ROUNDS = 12;

const key = (path: Path) => JSON.stringify(path);

/** The wire path form `resolveConfig` uses: `agents[1].prompt_engineering.system`. */
function wirePath(path: Path): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? segment : `.${segment}`;
  }
  return out;
}

/** Whether problem path `problem` is `removed` or lies under it. */
function under(problem: string, removed: string): boolean {
  if (removed === "") return true;
  return problem === removed || problem.startsWith(`${removed}.`) || problem.startsWith(`${removed}[`);
}

/**
 * Paths whose removal makes problems elsewhere meaningless: without its data_dir or runtime, other
 * fields would be checked against a default the file does not say.
 */
function dependentOf(removed: string): RegExp | null {
  if (removed === "defaults") return /\.prompt_engineering\.|^agents\[\d+\]\.(command|tools)/;
  if (removed === "defaults.data_dir") return /\.prompt_engineering\./;
  if (removed === "defaults.coding_agent" || removed === "defaults.tools")
    return /^agents\[\d+\]\.(command|tools)/;
  const agentRuntime = /^(agents\[\d+\])\.coding_agent$/.exec(removed);
  if (agentRuntime) return new RegExp(`^${agentRuntime[1]?.replace(/[[\]]/g, "\\$&")}\\.(command|tools)`);
  return null;
}

function parentOf(root: unknown, path: Path): unknown {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/**
 * Takes `path` out of `root`, or sets aside what holds it: an item of a list other than `agents`
 * takes the whole list with it (indexes stay stable); an agent becomes a stand-in whose problems are
 * dropped. Returns the path that was taken out, or null when nothing can be (the root).
 */
function takeOut(root: unknown, path: Path, removed: Set<string>): Path | null {
  let target = [...path];
  for (;;) {
    if (target.length === 0) return null;
    const last = target[target.length - 1];
    const parent = parentOf(root, target);
    if (typeof last === "number") {
      if (target.length === 2 && target[0] === "agents" && Array.isArray(parent)) {
        if (removed.has(key(target))) return null;
        parent[last] = { name: `sssf-set-aside-${last}` };
        return target;
      }
      target = target.slice(0, -1);
      continue;
    }
    if (removed.has(key(target)) || parent === null || typeof parent !== "object" || Array.isArray(parent)) {
      target = target.slice(0, -1);
      continue;
    }
    delete (parent as Record<string, unknown>)[last as string];
    return target;
  }
}

/** The paths of zod `issues` (an unknown key's path includes the key). */
function issuePaths(issues: readonly z.core.$ZodIssue[]): Path[] {
  return issues.flatMap((issue) => {
    const base = issue.path.filter((s): s is Segment => typeof s === "string" || typeof s === "number");
    return issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...base, k]) : [base];
  });
}

/**
 * The problems the semantic checks find in the parts of a schema-invalid `value` the schema
 * accepted; [] when too little of it parses. Never throws.
 */
export function problemsBeyondSchema(
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
  context: { repoRoot: string; file: string; knownRuntimes: readonly string[] },
): ConfigProblem[] {
  const copy: unknown = structuredClone(value);
  const removed = new Set<string>();
  let pending = issues;
  let parsed: ConfigWire | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const path of issuePaths(pending)) {
      const out = takeOut(copy, path, removed);
      if (out === null) return [];
      removed.add(key(out));
    }
    const result = configWireSchema().safeParse(copy, { error: configIssueMessage });
    if (result.success) {
      parsed = result.data;
      break;
    }
    pending = result.error.issues;
  }
  if (parsed === undefined) return [];
  const removedPaths = [...removed].map((k) => wirePath(JSON.parse(k) as Path));
  const dependents = removedPaths.map(dependentOf).filter((r): r is RegExp => r !== null);
  return resolveConfig(parsed, context).problems.filter(
    (problem) =>
      !removedPaths.some((r) => under(problem.path, r)) && !dependents.some((d) => d.test(problem.path)),
  );
}
