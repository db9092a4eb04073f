import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow } from "../../src/api/run-api.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import type { OutputType } from "../../src/envelope/output-type.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import type { Gate } from "../../src/gates/gate.js";
import { gates } from "../../src/gates/index.js";
import { runWorkflow } from "../../src/library.js";
import { BASE_ENVELOPE, reportText, VERIFICATION_FAILED } from "../envelope/markdown-seed-examples.js";
import { createRepo, type Repo } from "./workflow-fixture.js";

interface EnvelopeRow {
  attempt: number;
  reason: string;
  valid: number;
  status: string | null;
  envelope_json: string | null;
  errors: string;
}

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

/** One agent phase `propose` owned by `proposer`, making one Markdown call; the envelope is the reason. */
function proposeWorkflow(options: { outputType?: OutputType; gates?: Gate<never>[] } = {}) {
  return defineWorkflow({
    name: "markdown",
    description: "",
    agents: ["proposer"],
    async run(run, request) {
      const envelope = await run.agent("propose", { owner: "proposer", description: "" }, (p) =>
        p.call({
          outputType: options.outputType ?? MarkdownResult,
          prompt: request,
          format: "markdown",
          gates: options.gates ?? [gates.statusConsistent, gates.nextRecommendedSpecific],
        }),
      );
      return run.finish({ accepted: true, reason: JSON.stringify(envelope) });
    },
  });
}

const rows = (r: Repo) =>
  r.query<EnvelopeRow>(
    "SELECT attempt, reason, valid, status, envelope_json, errors FROM envelopes ORDER BY attempt",
  );

describe("a call with format markdown", () => {
  it("shows the Markdown ## Report and corrects a missing section in the same session", async () => {
    repo = createRepo({
      proposer: [{ reply: `Here you go.\n\n${reportText({ next: "" })}` }, { reply: reportText() }],
    });
    const outcome = await runWorkflow({
      workflow: proposeWorkflow(),
      request: "propose dark mode",
      config: repo.config,
    });
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(outcome.reason)).toEqual(BASE_ENVELOPE);

    const sends = repo.agents.proposer?.sends() ?? [];
    expect(sends.map((send) => [send.session_id, send.resume])).toEqual([
      [sends[0]?.session_id, false],
      [sends[0]?.session_id, true],
    ]);
    expect(sends[0]?.prompt).toContain("## Report\n\nEnd your reply with this Markdown report");
    expect(sends[0]?.prompt).toContain(
      "```markdown\n## Proposal Created\n\n**Change**: add-dark-mode\n**Status**: success\n",
    );
    expect(sends[0]?.prompt).not.toContain("Respond with ONLY valid JSON");
    expect(sends[1]?.prompt).toContain(
      "Problems:\n- `### Next Recommended`: missing: add a `### Next Recommended` section",
    );

    const [first, second] = rows(repo);
    expect(first).toMatchObject({
      attempt: 1,
      reason: "initial",
      valid: 0,
      status: null,
      envelope_json: null,
    });
    expect(JSON.parse(first?.errors ?? "")).toEqual([
      { path: "Next Recommended", message: expect.stringMatching(/^missing: /) },
    ]);
    expect(second).toMatchObject({
      attempt: 2,
      reason: "json_fix",
      valid: 1,
      status: "success",
      errors: "[]",
    });
    expect(JSON.parse(second?.envelope_json ?? "")).toEqual(BASE_ENVELOPE);
  });

  it("fails the phase after json_fix_attempts corrections, naming the sections", async () => {
    const broken = reportText({ summary: "", artifacts: "" });
    repo = createRepo(
      { proposer: [{ reply: broken }, { reply: broken }] },
      { top: { limits: { json_fix_attempts: 1 } } },
    );
    const outcome = await runWorkflow({ workflow: proposeWorkflow(), request: "x", config: repo.config });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.phases[0]?.error).toContain(
      "proposer gave no valid MarkdownResult after 2 replies: Summary: missing",
    );
    expect(outcome.phases[0]?.error).toContain("Artifacts: missing");
    expect(rows(repo).map((row) => [row.reason, row.valid])).toEqual([
      ["initial", 0],
      ["json_fix", 0],
    ]);
  });

  it("a failure report is a valid row and fails the phase with its summary and CRITICAL risks", async () => {
    repo = createRepo({ proposer: [{ reply: VERIFICATION_FAILED }] });
    const outcome = await runWorkflow({
      workflow: proposeWorkflow(),
      request: "verify",
      config: repo.config,
    });
    expect(outcome.exitCode).toBe(1);
    const error = outcome.phases[0]?.error ?? "";
    expect(error).toContain('proposer reported status "failure": Verification failed: 3 of 8 spec scenarios');
    expect(error).toContain("; CRITICAL: `ThemeToggle` component throws error");
    expect(error).toContain("; CRITICAL: Test \"persists theme choice\" expects 'dark' but got 'light'");
    expect(error).not.toContain("Coverage is 67%");
    const [row] = rows(repo);
    expect(row).toMatchObject({ valid: 1, status: "fail" });
    expect(JSON.parse(row?.envelope_json ?? "")).toMatchObject({
      result_status: "failure",
      phase: "Verification Report",
    });
  });

  it("gate violations go back as a Markdown gate correction", async () => {
    const warning = reportText({
      head: "## Proposal Created\n**Change**: add-dark-mode\n**Status**: warning\n",
    });
    const fixed = reportText({
      head: "## Proposal Created\n**Change**: add-dark-mode\n**Status**: warning\n",
      risks: "### Risks\n- **WARNING**: no design yet\n",
    });
    repo = createRepo({ proposer: [{ reply: warning }, { reply: fixed }] });
    const outcome = await runWorkflow({ workflow: proposeWorkflow(), request: "x", config: repo.config });
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(outcome.reason)).toMatchObject({ warning: true, risks: [{ severity: "WARNING" }] });
    const second = repo.agents.proposer?.sends()[1]?.prompt ?? "";
    expect(second).toContain("Gate `statusConsistent` failed:\n- risks: status warning lists no risk");
    expect(second).toContain("reply again with the complete Markdown report");
    expect(rows(repo).map((row) => row.reason)).toEqual(["initial", "gate_fix"]);
  });

  it("refuses an output type that is not MarkdownResult, before any send", async () => {
    repo = createRepo({ proposer: [{ reply: reportText() }] });
    const outcome = await runWorkflow({
      workflow: proposeWorkflow({ outputType: GenericOutput, gates: [] }),
      request: "x",
      config: repo.config,
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.phases[0]?.error).toContain(
      'a call with format "markdown" needs outputType MarkdownResult or a type extending it: GenericOutput is not MarkdownResult',
    );
    expect(repo.agents.proposer?.sends()).toEqual([]);
  });
});
