import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom, collect } from "../helpers/sandbox.js";
import {
  answerWhenAsked,
  CHANGE,
  criticalDesign,
  DIR,
  phaseRowsOf,
  phaseTurn,
  REQUEST,
  roster,
} from "./sdd-world.js";
import { GIT_ENV, WorkflowWorld } from "./workflow-world.js";

let world: WorkflowWorld | undefined;
afterEach(() => world?.cleanup());

const phaseRows = (adwId: string) => phaseRowsOf(world, adwId);

describe("sdd", () => {
  it("runs explore → propose → spec ∥ design → tasks → apply → verify → archive and commits once", async () => {
    world = new WorkflowWorld({ agents: roster() });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`archived ${CHANGE}`);
    const adwId = adwIdFrom(result.stdout);
    const phases = phaseRows(adwId);
    expect(phases.map((p) => `${p.name}:${p.status}`)).toEqual([
      "request:success",
      "explore:success",
      "propose:success",
      "spec:success",
      "design:success",
      "tasks:success",
      "apply:success",
      "verify:success",
      "archive:success",
      "commit:success",
    ]);
    // Spec and design overlap in time.
    const spec = phases.find((p) => p.name === "spec");
    const design = phases.find((p) => p.name === "design");
    expect(spec && design).toBeTruthy();
    if (spec && design) {
      expect(Date.parse(spec.started_at)).toBeLessThan(Date.parse(design.ended_at));
      expect(Date.parse(design.started_at)).toBeLessThan(Date.parse(spec.ended_at));
    }
    const envelopes = world.sb.query<{ output_type: string; valid: number }>(
      "SELECT output_type, valid FROM envelopes WHERE adw_id = ?",
      adwId,
    );
    expect(envelopes).toHaveLength(8);
    expect(envelopes.every((e) => e.output_type === "MarkdownResult" && e.valid === 1)).toBe(true);
    expect(world.commits(adwId)).toEqual([`sssf(${adwId}): ${CHANGE}: Change Archived for ${CHANGE}.`]);
    const files = world.commitFiles(adwId, 0);
    expect(files).toContain(`openspec/changes/archive/${CHANGE}/proposal.md`);
    expect(files).toContain("src/theme.js");
  });

  it("stops on a CRITICAL risk from verify: nothing is archived or committed", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-verify": [
          phaseTurn(`${DIR}/verify-report.md`, {
            heading: "Verification Report",
            status: "warning",
            summary: "2 of 5 scenarios are untested.",
            next: "Fix the failing toggle test in src/theme.js, then re-verify. Do NOT archive.",
            risks: [
              "**CRITICAL**: Test 'persists theme choice' expects 'dark' but got 'light'",
              "**WARNING**: Coverage is 67%",
            ],
          }),
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stdout).toContain("CRITICAL");
    const adwId = adwIdFrom(result.stdout);
    const names = phaseRows(adwId).map((p) => p.name);
    expect(names).toContain("verify");
    expect(names).not.toContain("archive");
    expect(world.commits(adwId)).toEqual([]);
    expect(world.sb.agent("sdd-archive").sends()).toEqual([]);
  });

  it("asks the engineer on a CRITICAL design risk, waits, and goes on after sssf approve", async () => {
    world = new WorkflowWorld({ agents: roster({ "sdd-design": criticalDesign() }) });
    const child = world.sb.start(["run", "sdd", REQUEST], GIT_ENV);
    const done = collect(child);
    const { answered: approved, adwId } = await answerWhenAsked(world, "approve", [
      "--reason",
      "fallback accepted",
    ]);
    expect(approved?.code).toBe(0);
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("sssf approve");
    const names = phaseRows(adwId).map((p) => `${p.name}:${p.status}`);
    expect(names).toContain("approve-design:success");
    expect(names.at(-1)).toBe("commit:success");
    const answered = world.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND name LIKE '%approved%'",
      adwId,
    );
    expect(answered.length).toBeGreaterThan(0);
    expect(result.stdout).toContain("CRITICAL: localStorage may be unavailable in private mode");
  });

  it("stops when the engineer rejects, with the reason and who gave it", async () => {
    world = new WorkflowWorld({ agents: roster({ "sdd-design": criticalDesign() }) });
    const done = collect(world.sb.start(["run", "sdd", REQUEST], GIT_ENV));
    const { answered, adwId } = await answerWhenAsked(world, "reject", [
      "--reason",
      "design a fallback first",
    ]);
    expect(answered?.code).toBe(0);
    const result = await done;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("design: rejected by ");
    expect(result.stdout).toContain("design a fallback first");
    const names = phaseRows(adwId).map((p) => p.name);
    expect(names).not.toContain("tasks");
    expect(world.commits(adwId)).toEqual([]);
  });

  it("a warning proceeds and its risks reach the final banner", async () => {
    world = new WorkflowWorld({
      agents: roster({
        "sdd-propose": [
          phaseTurn(`${DIR}/proposal.md`, {
            heading: "Proposal Created",
            status: "warning",
            risks: ["**WARNING**: the settings page has no tests yet"],
          }),
        ],
      }),
    });
    const result = await world.run(["run", "sdd", REQUEST]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("WARNING: the settings page has no tests yet");
  });
});
