/**
 * The config check of `tools` lists: every name must be one of sssf's tool names
 * (`src/runtimes/tool-names.ts`), except in lists only exec agents receive, whose program defines its
 * own tools (docs/configuration.md, "Tools").
 */
import type { ConfigProblem } from "../errors/config-error.js";
import { isToolName, TOOL_NAMES, type ToolName } from "../runtimes/tool-names.js";
import { suggestKey } from "../util/suggest-key.js";

/**
 * Other CLIs' names for sssf's tools (claude's `Glob`, `MultiEdit`; gemini's `read_file`,
 * `run_shell_command`, …), lowercased and snake_cased, for the "did you mean" of a ported config.
 */
const NATIVE_NAMES: Readonly<Record<string, ToolName>> = {
  glob: "find",
  multi_edit: "edit",
  multiedit: "edit",
  replace: "edit",
  str_replace: "edit",
  apply_patch: "edit",
  read_file: "read",
  read_many_files: "read",
  write_file: "write",
  create: "write",
  run_shell_command: "bash",
  shell: "bash",
  exec_command: "bash",
  grep_search: "grep",
  search_file_content: "grep",
  list_directory: "ls",
  list: "ls",
};

const snakeCase = (name: string) =>
  name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase();

const letters = (name: string) => [...name].sort().join("");

/**
 * The sssf tool a wrong name most likely meant: another case (`Read`), another CLI's name for it
 * (`Glob` → `find`, `run_shell_command` → `bash`), a near spelling (`Reed`) or the same letters
 * swapped (`wirte`). Undefined when nothing is close. Never throws.
 */
export function suggestToolName(name: string): ToolName | undefined {
  const snake = snakeCase(name);
  if (isToolName(snake)) return snake;
  const native = NATIVE_NAMES[snake];
  if (native) return native;
  const near = suggestKey(snake, TOOL_NAMES);
  if (near !== undefined && isToolName(near)) return near;
  return TOOL_NAMES.find((tool) => letters(tool) === letters(snake));
}

/**
 * One problem per name of `tools` that is not an sssf tool name, addressed `<where>[<index>]`
 * (`agents[2].tools[1]`), naming the value, the valid names and a suggestion when one is close.
 * Never throws.
 */
export function unknownToolProblems(tools: readonly string[], where: string): ConfigProblem[] {
  return tools.flatMap((tool, index) => {
    if (isToolName(tool)) return [];
    const suggestion = suggestToolName(tool);
    const hint = suggestion === undefined ? "" : ` (did you mean ${JSON.stringify(suggestion)}?)`;
    return [
      {
        path: `${where}[${index}]`,
        message: `unknown tool ${JSON.stringify(tool)}${hint}; the tools are ${TOOL_NAMES.join(", ")} ([] means none; an exec agent's tools are free-form)`,
      },
    ];
  });
}
