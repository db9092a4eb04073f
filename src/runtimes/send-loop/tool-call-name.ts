/**
 * Display helpers every runtime uses to normalize tool calls: a short one-line name such as
 * `bash: ls -la src` and a bounded result snippet.
 */

import { redactSecrets } from "../../util/secrets/redact.js";
import { truncateGraphemes } from "../../util/terminal-text.js";

/** Longest display name, in characters. */
export const TOOL_NAME_MAX_CHARS = 80;
/** Longest result snippet kept in a ToolCall, in characters. */
export const TOOL_RESULT_MAX_CHARS = 2000;

/** Cuts `value` to `max` graphemes (never half an emoji), the last an ellipsis when cut. Never throws. */
export function truncateText(value: string, max: number): string {
  return truncateGraphemes(value, max);
}

const oneLine = (value: string): string => value.replace(/\s+/g, " ").trim();

/** The most telling argument of a call: its command, else its path, else compact JSON. */
function renderArgs(args: unknown): string {
  if (typeof args === "string") return args;
  if (typeof args !== "object" || args === null)
    return args === undefined || args === null ? "" : String(args);
  const fields = args as Record<string, unknown>;
  for (const key of ["command", "cmd"]) {
    const value = fields[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.map(String).join(" ");
  }
  for (const key of ["path", "file_path"]) {
    const value = fields[key];
    if (typeof value === "string") return value;
  }
  const json = JSON.stringify(args);
  return json === "{}" || json === "[]" ? "" : json;
}

/**
 * `<tool>: <short rendering of args>` on one line, at most 80 characters, secrets redacted before the
 * cut (a cut secret is no longer one the redaction knows); just `<tool>` when the args say nothing.
 * Never throws.
 */
export function toolCallName(tool: string, args: unknown): string {
  let rendered: string;
  try {
    rendered = oneLine(renderArgs(args));
  } catch {
    rendered = "";
  }
  return truncateText(redactSecrets(rendered === "" ? tool : `${tool}: ${rendered}`), TOOL_NAME_MAX_CHARS);
}

/** A tool result cut to a snippet of at most 2000 characters, secrets redacted before the cut. */
export function toolResultSnippet(result: string): string {
  return truncateText(redactSecrets(result), TOOL_RESULT_MAX_CHARS);
}
