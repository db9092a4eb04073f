/**
 * Request bodies shaped like each CLI's (docs/fake-model.md, research notes §4): the tool schemas
 * they offer and how they send a tool result back.
 */

const object = (properties: Record<string, unknown>, required: string[]) => ({
  type: "object",
  properties,
  required,
});
const str = { type: "string" };

/** pi's default tools, as OpenAI chat `tools`. */
export const PI_CHAT_TOOLS = [
  {
    name: "read",
    parameters: object({ path: str, offset: { type: "number" }, limit: { type: "number" } }, ["path"]),
  },
  { name: "bash", parameters: object({ command: str, timeout: { type: "number" } }, ["command"]) },
  {
    name: "edit",
    parameters: object({ path: str, oldText: str, newText: str }, ["path", "oldText", "newText"]),
  },
  { name: "write", parameters: object({ path: str, content: str }, ["path", "content"]) },
].map((fn) => ({ type: "function", function: { ...fn, description: `pi ${fn.name}` } }));

/** opencode's tools, as OpenAI chat `tools`. */
export const OPENCODE_CHAT_TOOLS = [
  {
    name: "bash",
    parameters: object({ command: str, timeout: { type: "number" }, description: str }, ["command"]),
  },
  { name: "edit", parameters: object({ filePath: str, oldString: str, newString: str }, ["filePath"]) },
  { name: "read", parameters: object({ filePath: str, offset: { type: "number" } }, ["filePath"]) },
  { name: "write", parameters: object({ content: str, filePath: str }, ["content", "filePath"]) },
].map((fn) => ({ type: "function", function: fn }));

/** claude's tools, as Anthropic `tools`. */
export const CLAUDE_TOOLS = [
  { name: "Bash", input_schema: object({ command: str, timeout: { type: "number" } }, ["command"]) },
  { name: "Edit", input_schema: object({ file_path: str, old_string: str, new_string: str }, ["file_path"]) },
  { name: "Read", input_schema: object({ file_path: str, offset: { type: "number" } }, ["file_path"]) },
  { name: "Write", input_schema: object({ file_path: str, content: str }, ["file_path", "content"]) },
];

/** gemini-cli's tools under `--approval-mode auto_edit`. */
export const GEMINI_TOOLS = [
  {
    functionDeclarations: [
      { name: "list_directory", parametersJsonSchema: object({ dir_path: str }, ["dir_path"]) },
      { name: "read_file", parametersJsonSchema: object({ absolute_path: str }, ["absolute_path"]) },
      {
        name: "replace",
        parametersJsonSchema: object({ file_path: str, old_string: str, new_string: str }, []),
      },
      {
        name: "write_file",
        parametersJsonSchema: object({ file_path: str, content: str }, ["file_path", "content"]),
      },
    ],
  },
];

const APPLY_PATCH = {
  type: "custom",
  name: "apply_patch",
  description: "Edit files with a patch",
  format: { type: "grammar", syntax: "lark", definition: "start: begin_patch hunk+ end_patch" },
};

/** codex's tools for a catalogued model (`gpt-5.5`): shell, plan, image and the freeform apply_patch. */
export const CODEX_TOOLS = [
  {
    type: "function",
    name: "exec_command",
    parameters: object({ cmd: str, workdir: str, yield_time_ms: { type: "number" } }, ["cmd"]),
  },
  {
    type: "function",
    name: "write_stdin",
    parameters: object({ session_id: { type: "number" }, chars: str }, []),
  },
  { type: "function", name: "view_image", parameters: object({ path: str }, ["path"]) },
  APPLY_PATCH,
];

/** codex with `--disable shell_tool`: apply_patch is the only way to write. */
export const CODEX_TOOLS_NO_SHELL = [CODEX_TOOLS[2], APPLY_PATCH];

/** pi's write tool in the Responses function format. */
export const PI_RESPONSES_TOOLS = [
  { type: "function", name: "write", parameters: object({ path: str, content: str }, ["path", "content"]) },
];

/** codex's opening input items: developer prompt, environment context, then the user prompt. */
export function codexInput(prompt: string): Record<string, unknown>[] {
  return [
    { type: "message", role: "developer", content: [{ type: "input_text", text: "You are Codex." }] },
    {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context><cwd>/w</cwd></environment_context>" }],
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
  ];
}
