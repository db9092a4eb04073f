import { defineWorkflow } from "../api/run-api.js";
import { act, changeDir, changeName, type Decided, sddPhase } from "./sdd-steps.js";
import { captureRequest, commit } from "./steps.js";

/** The sdd agents, one per phase: spec and design run at the same time, so they cannot share one. */
export const SDD_AGENTS = [
  "sdd-explore",
  "sdd-propose",
  "sdd-spec",
  "sdd-design",
  "sdd-tasks",
  "sdd-apply",
  "sdd-verify",
  "sdd-archive",
] as const;

/**
 * Spec-driven development (openspec layout): explore → propose → spec ∥ design → tasks → apply →
 * verify → archive, every agent answering with the Markdown result contract. After each report code
 * decides: proceed, ask the engineer (CRITICAL risks, or a Next Recommended that says it is blocked or
 * says to stop), or stop (failure; verify's CRITICAL risks and blocks always stop before the archive).
 * Apply's report must list every file it changed (`artifactsCoverChanges`). Warnings proceed and
 * reach the final banner. One commit at the end.
 */
export const sddWorkflow = defineWorkflow({
  name: "sdd",
  description: "Spec-driven development: explore, propose, spec ∥ design, tasks, apply, verify, archive",
  agents: SDD_AGENTS,
  phases: ["request", "explore", "propose", "spec ∥ design", "tasks", "apply", "verify", "archive", "commit"],
  async run(run, request) {
    const change = changeName(request);
    const dir = changeDir(change);
    const warnings: string[] = [];
    await captureRequest(run, request);
    const stop = (reason: string) =>
      run.finish({
        accepted: false,
        reason: warnings.length ? `${reason} (warnings: ${warnings.join("; ")})` : reason,
      });
    const step = async (name: string, decided: Decided) => {
      const outcome = await act(run, decided, { phase: name, warnings });
      return outcome.proceed ? null : outcome.reason;
    };

    const explored = await sddPhase(run, request, {
      name: "explore",
      description: "Investigate the codebase and the request",
      task: `Explore what the change touches. Write your notes to ${dir}/exploration.md.`,
      change,
      previous: null,
    });
    let blocked = await step("explore", explored);
    if (blocked) return stop(blocked);

    const proposed = await sddPhase(run, request, {
      name: "propose",
      description: "Write the change proposal",
      task: `Write the proposal (intent, scope, approach, rollback) to ${dir}/proposal.md.`,
      change,
      previous: explored.report,
    });
    blocked = await step("propose", proposed);
    if (blocked) return stop(blocked);

    const [specified, designed] = await run.parallel([
      () =>
        sddPhase(run, request, {
          name: "spec",
          description: "Write the delta specs (requirements and scenarios)",
          task: `Write the delta specs as requirements with Given/When/Then scenarios under ${dir}/specs/.`,
          change,
          previous: proposed.report,
        }),
      () =>
        sddPhase(run, request, {
          name: "design",
          description: "Write the technical design",
          task: `Write the technical design (decisions, files to change, data flow) to ${dir}/design.md.`,
          change,
          previous: proposed.report,
        }),
    ] as const);
    blocked = (await step("spec", specified)) ?? (await step("design", designed));
    if (blocked) return stop(blocked);

    const tasks = await sddPhase(run, request, {
      name: "tasks",
      description: "Break the change into implementation tasks",
      task: `Read ${dir}/specs/ and ${dir}/design.md. Write a numbered checklist of tasks to ${dir}/tasks.md.`,
      change,
      previous: { spec: specified.report, design: designed.report },
    });
    blocked = await step("tasks", tasks);
    if (blocked) return stop(blocked);

    const applied = await sddPhase(run, request, {
      name: "apply",
      description: "Implement the tasks",
      task: `Implement ${dir}/tasks.md following the specs and design; tick each task you finish. List every file you created or changed in Artifacts (tasks.md included); name any file you deleted in the Summary.`,
      change,
      previous: tasks.report,
      // Code checks the claim: every file the phase changed must be listed (artifactsCoverChanges).
      coverChanges: true,
    });
    blocked = await step("apply", applied);
    if (blocked) return stop(blocked);

    const verified = await sddPhase(run, request, {
      name: "verify",
      description: "Verify the implementation against the specs",
      task: `Check every spec scenario against the code and the tests; run the tests. Write ${dir}/verify-report.md. Report each unmet scenario or failing test as a CRITICAL risk.`,
      change,
      previous: applied.report,
      // Verify's CRITICAL risks block the archive outright: nobody approves past failing scenarios.
      onCritical: "stop",
    });
    blocked = await step("verify", verified);
    if (blocked) return stop(blocked);

    const archived = await sddPhase(run, request, {
      name: "archive",
      description: "Archive the change and merge its specs",
      task: `Merge the delta specs of ${dir}/specs/ into openspec/specs/, then move ${dir}/ to openspec/changes/archive/${change}/.`,
      change,
      previous: verified.report,
      last: true,
    });
    blocked = await step("archive", archived);
    if (blocked) return stop(blocked);

    await commit(run, "commit", { summary: `${change}: ${archived.report.summary}` });
    const reason = `archived ${change}`;
    return run.finish({
      accepted: true,
      reason: warnings.length ? `${reason} with warnings: ${warnings.join("; ")}` : reason,
    });
  },
});
