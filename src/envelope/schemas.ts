import { z } from "zod";
import { defineOutputType, lazyOutputType } from "./output-type.js";

/** Fields every envelope carries (seed names). `status` is the only required one. */
export const EnvelopeBase = z.object({
  status: z
    .enum(["success", "fail"])
    .describe('"success" or "fail": an agent declaring failure fails the phase'),
  summary: z.string().default("").describe("One sentence: what happened"),
  artifacts: z.array(z.string()).default([]).describe("Paths written, usually inside context_handoff/"),
  notes_for_next_agent: z.string().default("").describe("What the next agent must know"),
});
export type EnvelopeBase = z.output<typeof EnvelopeBase>;

export const GenericOutput = defineOutputType("GenericOutput", EnvelopeBase, {
  status: "success",
  summary: "<one sentence on what you did>",
  artifacts: [],
  notes_for_next_agent: "<what the next agent must know>",
});

export const PlanOutput = lazyOutputType(
  "PlanOutput",
  () =>
    EnvelopeBase.extend({
      commit_message: z.string().default("").describe("Imperative git subject for the plan file itself"),
    }),
  {
    status: "success",
    summary: "<one sentence on the plan>",
    artifacts: ["specs/add-health-endpoint.md"],
    notes_for_next_agent: "<what the builder must know>",
    commit_message: "Add plan for <feature>",
  },
);

export const BuildOutput = lazyOutputType(
  "BuildOutput",
  () =>
    EnvelopeBase.extend({
      changed_files: z
        .array(z.string())
        .default([])
        .describe("Every repo path you created, modified or deleted"),
      commit_message: z.string().default("").describe("Imperative git subject for the code change"),
    }),
  {
    status: "success",
    summary: "<one sentence on what you built>",
    artifacts: [],
    notes_for_next_agent: "<what the tester or reviewer must know>",
    changed_files: ["src/server.ts"],
    commit_message: "Add /health endpoint",
  },
);

export const ScoutFinding = z.object({ file: z.string(), note: z.string() });
export const ScoutOutput = lazyOutputType(
  "ScoutOutput",
  () => EnvelopeBase.extend({ findings: z.array(ScoutFinding).default([]) }),
  {
    status: "success",
    summary: "<one sentence on what you found>",
    artifacts: ["<context_handoff_dir>/scout_findings.md"],
    notes_for_next_agent: "",
    findings: [{ file: "src/server.ts", note: "<why this file matters>" }],
  },
);

export const ReviewFinding = z.object({ requirement: z.string(), met: z.boolean(), evidence: z.string() });
export const ReviewOutput = lazyOutputType(
  "ReviewOutput",
  () =>
    EnvelopeBase.extend({
      approved: z.boolean().default(false).describe("The verdict; status only says whether the review ran"),
      findings: z.array(ReviewFinding).default([]),
      blocking: z.array(z.string()).default([]).describe("What must change before approval"),
    }),
  {
    status: "success",
    summary: "<one sentence verdict>",
    artifacts: [],
    notes_for_next_agent: "",
    approved: true,
    findings: [
      { requirement: "<requirement from the plan>", met: true, evidence: "<file:line or test name>" },
    ],
    blocking: [],
  },
);

export const DocumentOutput = lazyOutputType(
  "DocumentOutput",
  () =>
    EnvelopeBase.extend({
      document_path: z.string().default("").describe("The write-up's home in the repo"),
      documented_files: z.array(z.string()).default([]),
      commit_message: z.string().default("").describe("Imperative git subject for the write-up"),
    }),
  {
    status: "success",
    summary: "<one sentence on what you documented>",
    artifacts: [],
    notes_for_next_agent: "",
    document_path: "docs/health-endpoint.md",
    documented_files: ["src/server.ts"],
    commit_message: "Document /health endpoint",
  },
);

const TestRefSchema = z.object({ name: z.string(), file: z.string().nullable().default(null) });

/** Code adapter: a quality suite's result, handed to the next agent through the same door. */
export const VerifyOutput = lazyOutputType(
  "VerifyOutput",
  () =>
    EnvelopeBase.extend({
      suite: z.string().describe("Quality suite name (test, lint, typecheck, build)"),
      command: z.array(z.string()).default([]),
      exit_code: z.number().int().nullable().default(null),
      passed: z.boolean(),
      duration_ms: z.number().nonnegative().default(0),
      output_tail: z.string().default("").describe("Last lines of combined stdout/stderr"),
      log_path: z
        .string()
        .nullable()
        .default(null)
        .describe("File holding the whole combined stdout/stderr (redacted, bounded), or null"),
      tests: z
        .object({
          total: z.number().int().nonnegative(),
          passed: z.number().int().nonnegative(),
          failed: z.number().int().nonnegative(),
          skipped: z.number().int().nonnegative(),
        })
        .nullable()
        .default(null)
        .describe("Per-test counts from the suite's report, or null when it has none"),
      failed_tests: z
        .array(TestRefSchema.extend({ message: z.string().nullable().default(null) }))
        .default([])
        .describe("The failures that count against the change (all of them without a per-test baseline)"),
      pre_existing_failures: z
        .array(TestRefSchema)
        .default([])
        .describe("Failing now and at the run's base commit: not the change's"),
      fixed_tests: z.array(TestRefSchema).default([]).describe("Failing at the base commit, passing now"),
      pre_existing_only: z
        .boolean()
        .default(false)
        .describe("The suite failed, but every failing test already failed at the base commit"),
      tests_path: z
        .string()
        .nullable()
        .default(null)
        .describe("File holding every test's outcome as JSON, or null"),
      tests_omitted: z
        .object({
          failed_tests: z.number().int().nonnegative().default(0),
          pre_existing_failures: z.number().int().nonnegative().default(0),
          fixed_tests: z.number().int().nonnegative().default(0),
        })
        .default({ failed_tests: 0, pre_existing_failures: 0, fixed_tests: 0 })
        .describe("Entries left out of each list above (each keeps at most 200)"),
    }),
  {
    status: "success",
    summary: "test: 42 passed, 0 failed",
    artifacts: [],
    notes_for_next_agent: "",
    suite: "test",
    command: ["npm", "test"],
    exit_code: 0,
    passed: true,
    duration_ms: 1234,
    output_tail: "42 passed, 0 failed",
    log_path: "adws/adw_data/sessions/a1b2c3d4/code/p03-test.test.log",
    tests: { total: 42, passed: 42, failed: 0, skipped: 0 },
    failed_tests: [],
    pre_existing_failures: [],
    fixed_tests: [],
    pre_existing_only: false,
    tests_path: "adws/adw_data/sessions/a1b2c3d4/code/p03-test.test.tests.json",
    tests_omitted: { failed_tests: 0, pre_existing_failures: 0, fixed_tests: 0 },
  },
);

export const FileChange = z.object({
  path: z.string(),
  change: z.enum(["added", "modified", "deleted", "renamed"]),
  previous_path: z.string().optional(),
});
/** Code adapter: a captured `git diff` of what a phase changed. */
export const ChangesOutput = lazyOutputType(
  "ChangesOutput",
  () =>
    EnvelopeBase.extend({
      base_ref: z.string().default(""),
      files: z.array(FileChange).default([]),
      diff_path: z.string().default("").describe("Where the full diff is saved in the session directory"),
      diff_stat: z.string().default(""),
    }),
  {
    status: "success",
    summary: "2 files changed",
    artifacts: [],
    notes_for_next_agent: "",
    base_ref: "HEAD",
    files: [{ path: "src/server.ts", change: "modified" }],
    diff_path: "<session_dir>/changes/build.diff",
    diff_stat: " src/server.ts | 4 ++++",
  },
);

/** Every built-in output type, by wire name. */
export const builtinOutputTypes = {
  GenericOutput,
  PlanOutput,
  BuildOutput,
  ScoutOutput,
  ReviewOutput,
  DocumentOutput,
  VerifyOutput,
  ChangesOutput,
} as const;
