/**
 * How the demo's closing hints spell the command that runs sssf, so they can be pasted as printed:
 * `sssf` when the `sssf` on PATH is this very program (an installed bin), `npx sssf` when this
 * program is an installed package that is not on PATH (a project dependency, `npx sssf demo`), and
 * `node <script>` only when it runs from a clone of sssf itself.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../util/find-executable.js";

/** What {@link sssfInvocation} looks at; each defaults to this process's. */
export interface InvocationContext {
  /** The script node runs (`process.argv[1]`). */
  script?: string | undefined;
  cwd?: string;
  env?: Record<string, string | undefined>;
}

const real = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/**
 * The command prefix the demo's hints use: `sssf`, `npx sssf`, or `node <script>` (relative to `cwd`
 * when the script lies under it). Never throws.
 * @example `${sssfInvocation()} phases ${adwId}` // "sssf phases 3f9a1c2e" once installed
 */
export function sssfInvocation(context: InvocationContext = {}): string {
  const script = context.script ?? process.argv[1];
  const cwd = context.cwd ?? process.cwd();
  const env = context.env ?? process.env;
  if (script === undefined || script === "") return "sssf";
  const target = real(path.resolve(cwd, script));
  const onPath = findExecutable("sssf", { cwd, env });
  if (onPath !== null && real(onPath) === target) return "sssf";
  if (target.split(path.sep).includes("node_modules")) return "npx sssf";
  const relative = path.relative(cwd, script);
  return `node ${relative.startsWith("..") || path.isAbsolute(relative) ? script : relative}`;
}
