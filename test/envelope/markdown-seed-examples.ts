/** The three examples of the Markdown result contract (third seed), exactly as the seed shows them. */

export const PROPOSAL_CREATED = `## Proposal Created

**Change**: add-dark-mode
**Status**: success

### Summary
Proposal defines UI theme switching with localStorage persistence. Scope includes 3 core deliverables (theme toggle, CSS variables, persistence). Risk level: Low.

### Artifacts
- openspec/changes/add-dark-mode/proposal.md

### Next Recommended
Ready for specs (sdd-spec) or design (sdd-design). Recommend running both in parallel.

### Risks
None.
`;

export const VERIFICATION_FAILED = `## Verification Report

**Change**: add-dark-mode
**Status**: failure

### Summary
Verification failed: 3 of 8 spec scenarios are UNTESTED. Build passed, but 2 tests failed. Cannot archive until tests are fixed.

### Artifacts
- openspec/changes/add-dark-mode/verify-report.md

### Next Recommended
Fix failing tests in \`src/theme/__tests__/toggle.test.ts\`, then re-verify. Do NOT proceed to archive.

### Risks
- **CRITICAL**: \`ThemeToggle\` component throws error when localStorage is unavailable (scenario "Graceful fallback" UNTESTED)
- **CRITICAL**: Test "persists theme choice" expects 'dark' but got 'light'
- **WARNING**: Coverage is 67%, below recommended 80% threshold
`;

export const INIT_WITH_ENGRAM = `## SDD Initialized

**Project**: my-app
**Status**: success

### Summary
Project context detected (React 19 + TypeScript + Vitest). Persistence mode: engram. Project context saved to Engram.

### Artifacts
- Engram observation: #obs_abc123 (topic_key: sdd-init/my-app)

### Next Recommended
Ready for /sdd-explore &lt;topic&gt; or /sdd-new &lt;change-name&gt;.

### Risks
None.
`;

/** A report assembled from parts, for variants: each part is a section's full text, "" leaves it out. */
export function reportText(
  parts: Partial<Record<"head" | "summary" | "artifacts" | "next" | "risks", string>> = {},
): string {
  const all = {
    head: "## Proposal Created\n\n**Change**: add-dark-mode\n**Status**: success\n",
    summary: "### Summary\nProposal defines theme switching.\n",
    artifacts: "### Artifacts\n- openspec/changes/add-dark-mode/proposal.md\n",
    next: "### Next Recommended\nReady for specs (sdd-spec).\n",
    risks: "### Risks\nNone.\n",
    ...parts,
  };
  return [all.head, all.summary, all.artifacts, all.next, all.risks].filter((part) => part !== "").join("\n");
}

/** The envelope `reportText()` parses into. */
export const BASE_ENVELOPE = {
  status: "success",
  summary: "Proposal defines theme switching.",
  artifacts: ["openspec/changes/add-dark-mode/proposal.md"],
  notes_for_next_agent: "Ready for specs (sdd-spec).",
  phase: "Proposal Created",
  change: "add-dark-mode",
  result_status: "success",
  warning: false,
  next_recommended: "Ready for specs (sdd-spec).",
  risks: [],
};
