/**
 * The fake model's script for the demo: every `simple-sdlc` agent send, in the order the workflow
 * makes them. Steps match on text the real prompts carry (the `## Report` line naming the output
 * type, the correction message, the failing test output), and every one requires `hasTools`, so a
 * side request pi might make can never consume a step.
 */

import type { FakeScript, FakeStep } from "../testing/fake-model/types.js";
import {
  BUGGY_CODE,
  CODE_PATH,
  DEMO_COMMITS,
  DOC,
  DOC_PATH,
  FAILURE_MARK,
  FIXED_CODE,
  SPEC,
  SPEC_PATH,
  TEST_PATH,
  TESTS,
} from "./demo-story-files.js";

/** The first send of a phase: the prompt names its output type, and no tool has run yet. */
const first = (text: string) => ({ text, hasTools: true, afterToolResult: false });
/** A later request of the same send: the same prompt, now ending with a tool result. */
const then = (text: string) => ({ text, hasTools: true, afterToolResult: true });

/** An envelope reply in a fenced block, as models usually give it. */
const envelope = (lead: string, fields: Record<string, unknown>): string =>
  `${lead}\n\n\`\`\`json\n${JSON.stringify(fields, null, 2)}\n\`\`\``;

const PLAN = "matching `PlanOutput`";
const BUILD = "matching `BuildOutput`";
const REVIEW = "matching `ReviewOutput`";
const DOCUMENT = "matching `DocumentOutput`";
/** The start of sssf's same-session JSON correction message. */
const CORRECTION = "Your reply could not be accepted";

const planFields = {
  summary: "Planned slugify: three rules, one source file, one test file",
  artifacts: [SPEC_PATH],
  notes_for_next_agent: `Follow ${SPEC_PATH}; put the code in ${CODE_PATH} and the tests in ${TEST_PATH}.`,
  commit_message: DEMO_COMMITS.plan,
};

const planning: FakeStep[] = [
  { match: first(PLAN), reply: "I'll write the plan first.", writeFile: { path: SPEC_PATH, content: SPEC } },
  // The first envelope forgets `status`: sssf names the field and asks again in the same session.
  { match: then(PLAN), reply: envelope(`The plan is in ${SPEC_PATH}.`, planFields) },
  { match: first(CORRECTION), reply: JSON.stringify({ status: "success", ...planFields }, null, 2) },
];

const building: FakeStep[] = [
  { match: first(BUILD), writeFile: { path: CODE_PATH, content: BUGGY_CODE } },
  { match: then(BUILD), writeFile: { path: TEST_PATH, content: TESTS } },
  {
    match: then(BUILD),
    reply: envelope("Implemented slugify and its tests.", {
      status: "success",
      summary: "Added slugify and two tests",
      changed_files: [CODE_PATH, TEST_PATH],
      notes_for_next_agent: "Run node --test.",
      commit_message: DEMO_COMMITS.code,
    }),
  },
];

// Matched on the failing run's own output, which reaches the fix prompt as VerifyOutput.output_tail.
const fixing: FakeStep[] = [
  {
    match: first(FAILURE_MARK),
    reply: "The edge dashes are not trimmed; fixing slugify.",
    writeFile: { path: CODE_PATH, content: FIXED_CODE },
  },
  {
    match: then(FAILURE_MARK),
    reply: envelope("Fixed.", {
      status: "success",
      summary: "slugify now trims the dashes at both ends",
      changed_files: [CODE_PATH],
      notes_for_next_agent: "",
      commit_message: "Trim edge dashes in slugify",
    }),
  },
];

const reviewing: FakeStep[] = [
  { match: first(REVIEW), tool: { name: "read", args: { path: CODE_PATH } } },
  {
    match: then(REVIEW),
    reply: envelope("Reviewed against the plan.", {
      status: "success",
      summary: "slugify meets all three rules of the plan, and each is tested",
      approved: true,
      findings: [
        { requirement: "lowercase words", met: true, evidence: `${CODE_PATH}: toLowerCase()` },
        { requirement: "single dashes", met: true, evidence: `${TEST_PATH}: joins lowercase words` },
        { requirement: "no dash at either end", met: true, evidence: `${TEST_PATH}: no dash at either end` },
      ],
      blocking: [],
    }),
  },
];

const documenting: FakeStep[] = [
  { match: first(DOCUMENT), writeFile: { path: DOC_PATH, content: DOC } },
  {
    match: then(DOCUMENT),
    reply: envelope("Documented.", {
      status: "success",
      summary: `Wrote ${DOC_PATH}`,
      artifacts: [DOC_PATH],
      document_path: DOC_PATH,
      documented_files: [CODE_PATH],
      commit_message: DEMO_COMMITS.docs,
    }),
  },
];

/**
 * The demo's script. Anything it does not foresee gets an error from the fake (never a made-up
 * answer), so a drifted prompt fails the demo loudly at the phase that drifted.
 */
export function demoScript(): FakeScript {
  return {
    steps: [...planning, ...fixing, ...building, ...reviewing, ...documenting],
    fallback: "error",
  };
}
