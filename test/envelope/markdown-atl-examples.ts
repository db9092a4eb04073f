/**
 * Reports shaped exactly as Agent Teams Lite's skills return them (github.com/Gentleman-Programming/
 * agent-teams-lite, `skills/*\/SKILL.md` "Return Summary" and `skills/_shared/sdd-phase-common.md`
 * "D. Return Envelope"): each phase's own report (`## <Heading>`, bold `**Change**`/`**Location**`
 * lines, its own `###` sections, `### Next Step`), followed by the shared compact envelope of bold
 * fields (`**Status**`, `**Summary**`, `**Artifacts**`, `**Next**`, `**Risks**`, `**Skill Resolution**`).
 * The placeholders are filled in for a change `add-dark-mode`.
 */

/** The shared envelope alone, as `sdd-phase-common.md` shows it (hybrid mode: Engram key | file). */
export const ATL_ENVELOPE = `**Status**: success
**Summary**: Proposal created for \`add-dark-mode\`. Defined scope, approach, and rollback plan.
**Artifacts**: Engram \`sdd/add-dark-mode/proposal\` | \`openspec/changes/add-dark-mode/proposal.md\`
**Next**: sdd-spec or sdd-design
**Risks**: None
**Skill Resolution**: injected — 3 skills (react-19, typescript, tailwind-4)
`;

/** `sdd-propose`: "## Proposal Created", a bulleted `### Summary`, `### Next Step`, then the envelope. */
export const ATL_PROPOSE = `## Proposal Created

**Change**: add-dark-mode
**Location**: \`openspec/changes/add-dark-mode/proposal.md\` (openspec/hybrid)

### Summary
- **Intent**: Let users switch the UI to a dark theme that persists across visits
- **Scope**: 3 deliverables in, 1 item deferred
- **Approach**: CSS custom properties toggled by a \`data-theme\` attribute
- **Risk Level**: Low

### Next Step
Ready for specs (sdd-spec) or design (sdd-design).

**Status**: success
**Summary**: Proposal created for \`add-dark-mode\`. Defined scope, approach, and rollback plan.
**Artifacts**: \`openspec/changes/add-dark-mode/proposal.md\`
**Next**: sdd-spec or sdd-design
**Risks**: None
**Skill Resolution**: injected — 2 skills (typescript, vitest)
`;

/** `sdd-spec`: "## Specs Created", a table, `### Coverage`, `### Next Step`; status `partial`. */
export const ATL_SPEC = `## Specs Created

**Change**: add-dark-mode

### Specs Written
| Domain | Type | Requirements | Scenarios |
|--------|------|-------------|-----------|
| ui-theme | New | 3 added, 0 modified, 0 removed | 7 |

### Coverage
- Happy paths: covered
- Edge cases: covered
- Error states: missing

### Next Step
Ready for design (sdd-design). If design already exists, ready for tasks (sdd-tasks).

**Status**: partial
**Summary**: Delta spec for ui-theme written with 3 requirements and 7 scenarios. Error states are not specified yet.
**Artifacts**: \`openspec/changes/add-dark-mode/specs/ui-theme/spec.md\`
**Next**: sdd-design, then sdd-tasks
**Risks**: **WARNING**: no scenario covers localStorage being unavailable
**Skill Resolution**: none — no registry found
`;

/** `sdd-design`: "## Design Created", a bulleted `### Summary`, `### Open Questions`, `### Next Step`. */
export const ATL_DESIGN = `## Design Created

**Change**: add-dark-mode
**Location**: \`openspec/changes/add-dark-mode/design.md\` (openspec/hybrid)

### Summary
- **Approach**: CSS variables on \`:root\`, switched by \`data-theme\` on \`<html>\`
- **Key Decisions**: 3 decisions documented
- **Files Affected**: 2 new, 3 modified, 0 deleted
- **Testing Strategy**: unit tests for the toggle and persistence, one e2e for the first paint

### Open Questions
None

### Next Step
Ready for tasks (sdd-tasks).

**Status**: success
**Summary**: Design written for \`add-dark-mode\`: 3 decisions, 2 new files and 3 modified.
**Artifacts**: \`openspec/changes/add-dark-mode/design.md\`
**Next**: sdd-tasks
**Risks**: **WARNING**: the first paint may flash the light theme before the script runs
**Skill Resolution**: fallback-registry — 2 skills (typescript, react-19)
`;

/** `sdd-tasks`: "## Tasks Created", a table, `### Implementation Order`, `### Next Step`. */
export const ATL_TASKS = `## Tasks Created

**Change**: add-dark-mode
**Location**: \`openspec/changes/add-dark-mode/tasks.md\` (openspec/hybrid)

### Breakdown
| Phase | Tasks | Focus |
|-------|-------|-------|
| Phase 1 | 2 | Foundation |
| Phase 2 | 2 | Core Implementation |
| Phase 3 | 1 | Testing |
| Total | 5 | |

### Implementation Order
Variables first, then the toggle, then persistence and tests, so each step can be tested on its own.

### Next Step
Ready for implementation (sdd-apply).

**Status**: success
**Summary**: 5 tasks in 3 phases for \`add-dark-mode\`.
**Artifacts**: \`openspec/changes/add-dark-mode/tasks.md\`
**Next**: sdd-apply
**Risks**: None
**Skill Resolution**: injected — 1 skill (typescript)
`;

/**
 * `sdd-apply`: "## Implementation Progress", `**Mode**`, a `### Files Changed` table and a
 * `### Status` section holding progress ("3/4 tasks complete. …"), not a status word; `partial`.
 */
export const ATL_APPLY = `## Implementation Progress

**Change**: add-dark-mode
**Mode**: Standard

### Completed Tasks
- [x] 1.1 Add the theme variables to \`src/styles/theme.css\`
- [x] 1.2 Add the \`ThemeToggle\` component
- [x] 2.1 Persist the choice in localStorage

### Files Changed
| File | Action | What Was Done |
|------|--------|---------------|
| \`src/styles/theme.css\` | Created | light and dark variables |
| \`src/components/ThemeToggle.tsx\` | Created | the toggle button |
| \`src/main.tsx\` | Modified | reads the saved theme before the first render |

### Deviations from Design
None — implementation matches design.

### Issues Found
None.

### Remaining Tasks
- [ ] 3.1 e2e test for the first paint

### Status
3/4 tasks complete. Ready for next batch

**Status**: partial
**Summary**: Implemented 3 of 4 tasks for \`add-dark-mode\`. The e2e test for the first paint is left for the next batch.
**Artifacts**: \`src/styles/theme.css\`, \`src/components/ThemeToggle.tsx\`, \`src/main.tsx\`, \`openspec/changes/add-dark-mode/tasks.md\`
**Next**: sdd-apply (batch 2: task 3.1), then sdd-verify
**Risks**: **WARNING**: the first paint is untested until task 3.1 is done
**Skill Resolution**: injected — 3 skills (react-19, typescript, vitest)
`;

const FENCE = "```";

/** `sdd-verify`: the full verification report (tables, code blocks, rules, bold result lines). */
export const ATL_VERIFY = `## Verification Report

**Change**: add-dark-mode
**Version**: N/A

---

### Completeness
| Metric | Value |
|--------|-------|
| Tasks total | 4 |
| Tasks complete | 4 |
| Tasks incomplete | 0 |

---

### Build & Tests Execution

**Build**: ✅ Passed
${FENCE}
vite v5.4.0 building for production...
✓ 42 modules transformed.
${FENCE}

**Tests**: ✅ 12 passed / ❌ 0 failed / ⚠️ 0 skipped
${FENCE}
 ✓ src/components/ThemeToggle.test.tsx (5)
 ✓ src/theme/persist.test.ts (7)
${FENCE}

**Coverage**: 84% / threshold: 80% → ✅ Above threshold

---

### Spec Compliance Matrix

| Requirement | Scenario | Test | Result |
|-------------|----------|------|--------|
| REQ-01: Theme toggle | Switch to dark | \`ThemeToggle.test.tsx > switches\` | ✅ COMPLIANT |
| REQ-02: Persistence | Reload keeps dark | \`persist.test.ts > keeps\` | ✅ COMPLIANT |

**Compliance summary**: 7/7 scenarios compliant

---

### Correctness (Static — Structural Evidence)
| Requirement | Status | Notes |
|------------|--------|-------|
| Theme toggle | ✅ Implemented | |
| Persistence | ✅ Implemented | |

---

### Coherence (Design)
| Decision | Followed? | Notes |
|----------|-----------|-------|
| CSS variables | ✅ Yes | |

---

### Issues Found

**CRITICAL** (must fix before archive):
None

**WARNING** (should fix):
None

**SUGGESTION** (nice to have):
- Extract the theme names into a shared constant

---

### Verdict
PASS

All 7 scenarios are compliant; build, tests and coverage pass.

**Status**: success
**Summary**: Verification passed for \`add-dark-mode\`: 7/7 scenarios compliant, 12 tests pass, coverage 84%.
**Artifacts**: \`openspec/changes/add-dark-mode/verify-report.md\`
**Next**: sdd-archive
**Risks**: **SUGGESTION**: extract the theme names into a shared constant
**Skill Resolution**: injected — 2 skills (vitest, typescript)
`;

/** `sdd-archive`: "## Change Archived", `**Archived to**`, `### SDD Cycle Complete`; Next is "none". */
export const ATL_ARCHIVE = `## Change Archived

**Change**: add-dark-mode
**Archived to**: \`openspec/changes/archive/2025-06-01-add-dark-mode/\` (openspec/hybrid)

### Specs Synced
| Domain | Action | Details |
|--------|--------|---------|
| ui-theme | Created | 3 added, 0 modified, 0 removed requirements |

### Archive Contents
- proposal.md ✅
- specs/ ✅
- design.md ✅
- tasks.md ✅ (4/4 tasks complete)

### Source of Truth Updated
The following specs now reflect the new behavior:
- \`openspec/specs/ui-theme/spec.md\`

### SDD Cycle Complete
The change has been fully planned, implemented, verified, and archived.
Ready for the next change.

**Status**: success
**Summary**: Archived \`add-dark-mode\` and merged its delta spec into \`openspec/specs/ui-theme/spec.md\`.
**Artifacts**: \`openspec/specs/ui-theme/spec.md\` | \`openspec/changes/archive/2025-06-01-add-dark-mode/\`
**Next**: none
**Risks**: None
**Skill Resolution**: injected — 1 skill (typescript)
`;

/** `sdd-init` in openspec mode: `**Project**`, `**Stack**`, `### Structure Created`, `### Next Steps`. */
export const ATL_INIT = `## SDD Initialized

**Project**: my-app
**Stack**: React 19 + TypeScript + Vitest
**Persistence**: openspec

### Structure Created
- openspec/config.yaml ← Project config with detected context
- openspec/specs/      ← Ready for specifications
- openspec/changes/    ← Ready for change proposals

### Next Steps
Ready for /sdd-explore <topic> or /sdd-new <change-name>.

**Status**: success
**Summary**: Project context detected (React 19 + TypeScript + Vitest). Persistence mode: openspec.
**Artifacts**: openspec/config.yaml, openspec/specs/, openspec/changes/
**Next**: /sdd-explore <topic> or /sdd-new <change-name>
**Risks**: None
**Skill Resolution**: none — no registry found
`;

/** `sdd-explore`: "## Exploration: <topic>"; its own `### Risks` has no severities, the envelope's has. */
export const ATL_EXPLORE = `## Exploration: dark mode

### Current State
The app has one hard-coded light palette in \`src/styles/global.css\`; no theme state exists.

### Affected Areas
- \`src/styles/global.css\` — colors move to CSS variables
- \`src/App.tsx\` — hosts the toggle

### Approaches
1. **CSS variables** — swap a \`data-theme\` attribute on \`<html>\`
   - Pros: no runtime cost
   - Cons: every color must become a variable
   - Effort: Medium

2. **Tailwind dark variant** — class strategy
   - Pros: built in
   - Cons: the app does not use Tailwind
   - Effort: High

### Recommendation
CSS variables: the smallest change that fits the current stack.

### Risks
- Third-party widgets keep their light styles
- The light theme may flash on first paint

### Ready for Proposal
Yes — tell the user the recommended approach is CSS variables.

**Status**: success
**Summary**: Explored dark mode for \`add-dark-mode\`: 2 approaches compared, CSS variables recommended.
**Artifacts**: \`openspec/changes/add-dark-mode/exploration.md\`
**Next**: sdd-propose
**Risks**: **WARNING**: third-party widgets keep their light styles; **WARNING**: the light theme may flash on first paint
**Skill Resolution**: injected — 1 skill (react-19)
`;

/** The envelope of a phase that could not run: status `blocked`, a `Blocked:` next step. */
export const ATL_BLOCKED = `**Status**: blocked
**Summary**: Cannot write the design: the proposal leaves the storage backend open.
**Artifacts**: None
**Next**: Blocked: the user must choose between localStorage and the settings API before sdd-design can run.
**Risks**: **CRITICAL**: no storage backend chosen
**Skill Resolution**: injected — 1 skill (typescript)
`;
