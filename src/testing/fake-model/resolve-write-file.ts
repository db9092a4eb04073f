/**
 * Turns an abstract "write this file" into a call of a tool the request actually offers, reading the
 * argument names from that tool's JSON schema: pi `write{path,content}`, opencode
 * `write{filePath,content}`, claude `Write{file_path,content}`, gemini `write_file{file_path,content}`,
 * codex `exec_command{cmd}` (a shell one-liner) or its freeform `apply_patch` ("Add File").
 */
import { asRecord, type FakeToolCall, type OfferedTool } from "./wire-api.js";

const PATH_KEYS = ["path", "filepath", "filename", "absolutepath", "targetfile"];
const CONTENT_KEYS = ["content", "contents", "filecontent", "filetext", "text"];
const normalise = (key: string) => key.toLowerCase().replace(/[_-]/g, "");

function propertiesOf(tool: OfferedTool): Record<string, unknown> {
  return asRecord(asRecord(tool.schema).properties);
}

function keyAmong(properties: Record<string, unknown>, candidates: readonly string[]): string | undefined {
  return Object.keys(properties).find((key) => candidates.includes(normalise(key)));
}

/** Single-quotes a string for sh. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A POSIX shell line writing `content` to `path` byte for byte, creating the parent folder. */
export function writeFileCommand(path: string, content: string): string {
  const slash = path.lastIndexOf("/");
  const mkdir = slash > 0 ? `mkdir -p ${shellQuote(path.slice(0, slash))} && ` : "";
  return `${mkdir}printf '%s' ${shellQuote(content)} > ${shellQuote(path)}`;
}

/** An apply_patch body adding `path` with `content` (each line prefixed with `+`). */
export function addFilePatch(path: string, content: string): string {
  const lines = content.split("\n");
  if (content.endsWith("\n")) lines.pop();
  return `*** Begin Patch\n*** Add File: ${path}\n${lines.map((line) => `+${line}\n`).join("")}*** End Patch\n`;
}

function viaWriteTool(tools: OfferedTool[], path: string, content: string): FakeToolCall | undefined {
  const candidates = tools
    .filter((tool) => !tool.freeform)
    .map((tool) => ({
      tool,
      pathKey: keyAmong(propertiesOf(tool), PATH_KEYS),
      contentKey: keyAmong(propertiesOf(tool), CONTENT_KEYS),
    }))
    .filter((candidate) => candidate.pathKey && candidate.contentKey);
  const chosen =
    candidates.find((candidate) => normalise(candidate.tool.name).includes("write")) ?? candidates[0];
  if (!chosen?.pathKey || !chosen.contentKey) return undefined;
  return {
    name: chosen.tool.name,
    freeform: false,
    args: { [chosen.pathKey]: path, [chosen.contentKey]: content },
  };
}

function viaShellTool(tools: OfferedTool[], path: string, content: string): FakeToolCall | undefined {
  for (const tool of tools) {
    if (tool.freeform) continue;
    const properties = propertiesOf(tool);
    const key = ["cmd", "command"].find((name) => name in properties);
    if (!key || !/shell|exec|bash|command/i.test(tool.name)) continue;
    const line = writeFileCommand(path, content);
    // codex's older `shell` tool takes argv as an array.
    const value = asRecord(properties[key]).type === "array" ? ["bash", "-lc", line] : line;
    return { name: tool.name, freeform: false, args: { [key]: value } };
  }
  return undefined;
}

function viaApplyPatch(tools: OfferedTool[], path: string, content: string): FakeToolCall | undefined {
  const tool = tools.find((candidate) => candidate.name === "apply_patch");
  if (!tool) return undefined;
  const patch = addFilePatch(path, content);
  if (tool.freeform) return { name: tool.name, freeform: true, input: patch };
  const key = Object.keys(propertiesOf(tool))[0] ?? "input";
  return { name: tool.name, freeform: false, args: { [key]: patch } };
}

/**
 * The call that writes `path` with `content` using the request's own tools: a write tool with path
 * and content parameters first, then a shell tool, then apply_patch. Undefined when none is offered.
 * Never throws.
 */
export function resolveWriteFile(
  tools: OfferedTool[],
  path: string,
  content: string,
): FakeToolCall | undefined {
  return (
    viaWriteTool(tools, path, content) ??
    viaShellTool(tools, path, content) ??
    viaApplyPatch(tools, path, content)
  );
}
