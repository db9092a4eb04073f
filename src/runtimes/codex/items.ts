/**
 * codex `exec --json` items → sssf tool calls: `command_execution` is `bash`, `file_change` is `write`
 * (only added files) or `edit`, `mcp_tool_call` is `mcp`, `web_search` is `web_search`; other item
 * types that are not messages are reported under their own type name.
 */

import path from "node:path";

/** An `item` of an `item.started` / `item.updated` / `item.completed` event. */
export interface CodexItem {
  id: string;
  type: string;
  [field: string]: unknown;
}

/** Item types that are messages or bookkeeping, never tool calls. */
const NOT_TOOLS = new Set(["agent_message", "reasoning", "todo_list", "error", "user_message"]);

const text = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);

/** `/bin/bash -lc "ls -la"` → `ls -la`: the command the model wrote, without codex's shell wrapper. */
export function unwrapShell(command: string): string {
  const wrapped = /^(?:\S*\/)?(?:ba|z)?sh -l?c (.+)$/s.exec(command.trim());
  const inner = wrapped?.[1];
  if (inner === undefined) return command;
  if (inner.length >= 2 && inner.startsWith('"') && inner.endsWith('"'))
    return inner.slice(1, -1).replace(/\\(["\\$`])/g, "$1");
  if (inner.length >= 2 && inner.startsWith("'") && inner.endsWith("'"))
    return inner.slice(1, -1).replace(/'\\''/g, "'");
  return inner;
}

const display = (file: string, cwd: string): string => {
  const relative = path.relative(cwd, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
};

interface FileChange {
  path: string;
  kind: string;
}

function changesOf(item: CodexItem): FileChange[] {
  const changes = Array.isArray(item.changes) ? item.changes : [];
  return changes.map((change: { path?: unknown; kind?: unknown }) => ({
    path: text(change.path),
    kind: typeof change.kind === "string" ? change.kind : text(change.kind),
  }));
}

/** The sssf tool and args of a tool item, or null when the item is not a tool call. Never throws. */
export function toolOfItem(item: CodexItem, cwd: string): { tool: string; args: unknown } | null {
  if (NOT_TOOLS.has(item.type)) return null;
  switch (item.type) {
    case "command_execution":
      return { tool: "bash", args: { command: unwrapShell(text(item.command)) } };
    case "file_change": {
      const changes = changesOf(item);
      const tool = changes.length > 0 && changes.every((c) => c.kind === "add") ? "write" : "edit";
      return { tool, args: { path: changes.map((c) => display(c.path, cwd)).join(", "), changes } };
    }
    case "mcp_tool_call":
      return {
        tool: "mcp",
        args: { tool: `${text(item.server)}.${text(item.tool)}`, arguments: item.arguments },
      };
    case "web_search":
      return { tool: "web_search", args: { query: text(item.query) } };
    default: {
      const { id: _id, type: _type, status: _status, ...args } = item;
      return { tool: item.type, args };
    }
  }
}

/** A finished tool item's result snippet source and success. Never throws. */
export function itemOutcome(item: CodexItem, cwd: string): { result: string; ok: boolean } {
  const status = text(item.status);
  const failed = status === "failed" || status === "declined" || status === "cancelled";
  switch (item.type) {
    case "command_execution": {
      const exitCode = typeof item.exit_code === "number" ? item.exit_code : null;
      const output = text(item.aggregated_output);
      return {
        result: output !== "" ? output : exitCode === null ? status : `exit code ${exitCode}`,
        ok: !failed && (exitCode === null || exitCode === 0),
      };
    }
    case "file_change":
      return {
        result: changesOf(item)
          .map((c) => `${c.kind} ${display(c.path, cwd)}`)
          .join("\n"),
        ok: !failed,
      };
    default: {
      const error = item.error;
      const hasError = error !== undefined && error !== null && error !== "";
      return { result: hasError ? text(error) : text(item.result ?? status), ok: !failed && !hasError };
    }
  }
}
