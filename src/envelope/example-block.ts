import type { OutputType } from "./output-type.js";

/** The type's example as a ```json fence of pretty JSON: the one rendering shared by prompts and corrections. */
export function exampleJsonBlock(type: OutputType): string {
  return `\`\`\`json\n${JSON.stringify(type.example, null, 2)}\n\`\`\``;
}
