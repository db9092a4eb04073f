import { describe, expect, it } from "vitest";
import { readNextStep } from "../../src/envelope/markdown-next-step.js";

const kind = (text: string) => readNextStep(text).kind;

describe("readNextStep: blocks", () => {
  it.each([
    ["Blocked: resolve open questions in design before proceeding", "Blocked"],
    ["**Blocked**: waiting on the API keys", "Blocked"],
    ["- BLOCKED — the design has open questions", "BLOCKED"],
    ["Blocker: the storage backend is not chosen.", "Blocker"],
    ["Blocked: cannot proceed if the API key is missing.", "Blocked"],
    ["Implementation is blocked by the missing API key.", "blocked by"],
    ["sdd-apply blocked on the design review.", "blocked on"],
    ["The change remains blocked until the user picks a backend.", "blocked until"],
    ["Cannot proceed until the user picks a storage backend.", "Cannot proceed"],
    ["We can't proceed: design.md is missing.", "can't proceed"],
    ["We can\u2019t continue without the API schema.", "can\u2019t continue"],
    ["The phase is blocked; the API schema is missing.", "is blocked"],
    ["Unable to move on: tasks.md is empty.", "Unable to move on"],
    [
      "Fix failing tests in `src/toggle.test.ts`, then re-verify. Do NOT proceed to archive.",
      "Do NOT proceed",
    ],
    ["Not ready for sdd-apply: design.md has open questions.", "Not ready for"],
    ["The missing schema blocks the next phase.", "blocks the next"],
  ])("%j is blocked (cue %j)", (text, cue) => {
    expect(readNextStep(text)).toEqual({ kind: "blocked", cue });
  });
});

describe("readNextStep: stops", () => {
  it.each([
    ["Stop here.", "Stop here"],
    ["Stop", "Stop"],
    ["Stop: the request is out of scope.", "Stop:"],
    ["Halt the run until the API keys arrive.", "Halt the run"],
    ["Abort the change; the request was withdrawn.", "Abort the change"],
    ["Pause for the engineer's approval.", "Pause for"],
    ["The run should stop here: the spec contradicts the proposal.", "run should stop"],
    ["Wait for the product owner's answer on the storage backend.", "Wait for"],
    ["Await approval of the design.", "Await"],
    ["Waiting on the security review.", "Waiting on"],
    ["The design is still waiting for the user's decision.", "still waiting for"],
    ["We must wait for the API team.", "must wait"],
    ["Put the change on hold until Q3.", "on hold"],
    ["Awaiting user approval before sdd-apply.", "Awaiting user approval"],
    ["Design needs the user's decision on persistence.", "needs the user's decision"],
    ["Ask the user which theme should be the default.", "Ask the user"],
    ["Check with the product owner before sdd-tasks.", "Check with the product owner"],
  ])("%j says to stop (cue %j)", (text, cue) => {
    expect(readNextStep(text)).toEqual({ kind: "stop", cue });
  });
});

describe("readNextStep: none needed", () => {
  it.each([
    "None needed.",
    "None",
    "none",
    "None — the change is archived.",
    "*None.*",
    "N/A",
    "Nothing further: the SDD cycle is complete.",
    "No further steps needed.",
  ])("%j is none", (text) => expect(readNextStep(text)).toEqual({ kind: "none", cue: "" }));
});

describe("readNextStep: real next steps are not mistaken for a block", () => {
  it.each([
    "Ready for specs (sdd-spec) or design (sdd-design). Recommend running both in parallel.",
    "Ready for /sdd-explore <topic> or /sdd-new <change-name>.",
    "sdd-spec or sdd-design",
    "Fix the failing toggle test in src/theme.js, then re-verify.",
    "Implement the stop button (sdd-apply).",
    "Stop the dev server, then run sdd-verify.",
    "Add the halt-on-error flag to `npm test` (sdd-apply).",
    "Implement wait-for-ready in src/net.ts (sdd-apply).",
    "Add a `waitFor` helper, then run sdd-verify.",
    "Ready for sdd-verify; the test waits for the socket.",
    "Fix the test waiting for the socket in src/net.test.ts.",
    "Verify the blocked-user flow (sdd-verify).",
    'Verify the "cannot proceed" error message in src/checkout.ts (sdd-verify).',
    "Verify that a blocked user sees `cannot proceed` (sdd-verify).",
    "No blockers; ready for sdd-apply.",
    "Blockers: none. Ready for sdd-verify.",
    "Nothing blocks sdd-apply: ready.",
    "Unblocked: ready for sdd-verify.",
    "Ready for sdd-apply; it is no longer blocked by the API review.",
    "Ready for sdd-apply: nothing is blocked.",
    "Ready for sdd-tasks: no need to wait for the API team.",
    "Run sdd-verify; stop if the tests still fail.",
    "If the user rejects the design, stop; otherwise run sdd-tasks.",
    "Confirm the localStorage fallback decision in design.md, then run sdd-tasks.",
    "Ask sdd-design to document the fallback, then run sdd-tasks.",
    "Done: the change is archived; start a new change with sdd-explore.",
    "Nothing to archive yet: run sdd-verify first.",
  ])("%j is a next step", (text) => expect(readNextStep(text)).toEqual({ kind: "next", cue: "" }));

  it("the first block or stop in the text decides", () => {
    expect(kind("Ready for sdd-apply. Blocked: the API key is missing.")).toBe("blocked");
    expect(kind("Wait for the review. Blocked by nothing else.")).toBe("stop");
  });
});
