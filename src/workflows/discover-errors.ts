/**
 * Turning whatever importing a workflow file threw (an esbuild transform error, a V8 syntax or link
 * error, an exception at load time, a missing module) into one line that names `file:line`.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where in `file` an error points, as ":line" or ":line:column", from a stack or message. */
function locationIn(text: string, file: string): string | undefined {
  const spellings = [pathToFileURL(file).href, file].map(escapeRegExp).join("|");
  // tsx may append its own query to the path; the digits after it are the location.
  const match = new RegExp(`(?:${spellings})(?:\\?[^:\\s)]*)?:(\\d+)(?::(\\d+))?`).exec(text);
  if (!match) return undefined;
  return match[2] ? `:${match[1]}:${match[2]}` : `:${match[1]}`;
}

/** esbuild's "Transform failed" lists `path:line:col: ERROR: text` lines; keep those, re-addressed. */
function transformErrors(message: string, file: string, label: string): string | undefined {
  const lines = message
    .split("\n")
    .map((line) => /^(.*):(\d+):(\d+): ERROR: (.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => {
      const where = match[1] === file ? label : match[1];
      // esbuild counts columns from 0; editors and V8 count from 1.
      return `${where}:${match[2]}:${Number(match[3]) + 1}: syntax error: ${match[4]}`;
    });
  return lines.length > 0 ? lines.join("; ") : undefined;
}

/**
 * A plain-JavaScript syntax error from V8 carries its location only in a hidden property, so the file is
 * parsed once more by `node --check` (as a module, from stdin) to get the line. Only on this error path.
 */
function syntaxCheckLine(file: string): string | undefined {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const checked = spawnSync(process.execPath, ["--input-type=module", "--check"], {
    input: source,
    encoding: "utf8",
    timeout: 10_000,
  });
  const match = /\[stdin\]:(\d+)/.exec(checked.stderr ?? "");
  return match ? `:${match[1]}` : undefined;
}

/**
 * One line describing why importing `file` failed, starting with `label` (its repo-relative path) and
 * the line (and column when known) the error points at: `adws/adw_x.ts:2:18: Unexpected ";"`.
 * Never throws.
 */
export function describeLoadError(error: unknown, file: string, label: string): string {
  const err = error instanceof Error ? error : new Error(String(error));
  const message = err.message || err.name;
  const transformed = transformErrors(message, file, label);
  if (transformed) return transformed;
  const firstLine = message.split("\n")[0] ?? message;
  const stack = err.stack ?? "";
  let location = locationIn(stack, file) ?? locationIn(message, file);
  if (location === undefined && err.name === "SyntaxError" && /\.m?js$/.test(file)) {
    location = syntaxCheckLine(file);
  }
  const kind = err.name === "SyntaxError" ? "syntax error: " : "";
  return `${label}${location ?? ""}: ${kind}${firstLine.replaceAll(pathToFileURL(file).href, label).replaceAll(file, label)}`;
}
