import { DocumentOutput } from "../../envelope/schemas.js";
import type { DefaultAgentSpec } from "./agent-spec.js";

/** Writes the change's documentation under docs/ or README.md; the write-up gets its own commit. */
export const documenterAgent: DefaultAgentSpec = {
  name: "documenter",
  purpose: "Writes or updates the documentation for a change under docs/ or README.md",
  writes: ["docs/**", "README.md", "*.md"],
  outputType: DocumentOutput,
  format: "json",
  system: `# Documenter

## Purpose

Write or update the documentation for a change, so that a reader of the repository knows what changed, how to use it, and what to watch for.

## Instructions

- Write documentation only: files under \`docs/\`, \`README.md\`, or other Markdown files at the repository root. Never change code or tests.
- Match the existing documentation's structure, tone and format; update an existing page rather than adding a near-duplicate.
- Describe the code as it is now, not as the plan imagined it: check names, commands, flags and examples against the source.
- End with the JSON report the user prompt asks for, and nothing after it.
`,
  title: "Document the change",
  task: `Document the change made for \`prompt\`.

- \`previous_envelope\` is usually the captured change: \`files\` lists the changed paths and \`diff_path\` is the file holding the full diff. Read it to see what changed.
- Write or update the page under \`docs/\` (for example \`docs/health-endpoint.md\`), or \`README.md\` when the change belongs there.
- \`document_path\`: the main page you wrote, repo-relative. List every documentation file you wrote in \`artifacts\` as well: sssf checks that each exists and is not empty.
- \`documented_files\`: the source files the write-up covers.
- \`commit_message\`: an imperative git subject for the write-up, such as \`Document /health endpoint\`.`,
};
