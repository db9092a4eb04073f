/**
 * A recorded run kept as a regression test: the script `sssf export-script` wrote, played by a fake
 * model run, and what the re-run did differently from the recording (`divergence`).
 */

import {
  type FakeModelRun,
  type StartFakeModelRunOptions,
  startFakeModelRun,
} from "./fake-model/fake-model-run.js";
import { loadFakeScript } from "./fake-model/load-fake-script.js";
import type { FakeScript, FakeStep } from "./fake-model/types.js";

/** A fake model run playing a recorded run's script. */
export interface RecordedRun extends FakeModelRun {
  /** The script, as loaded from the file. */
  script: FakeScript;
  /**
   * Where the re-run left the recording, one sentence each: a request no recorded step answered (the
   * workflow now asks something the recorded run did not), a recorded step never played (the re-run
   * ended sooner or took another path). Empty when the run played the recording exactly.
   */
  divergence(): string[];
}

/** `write {path}` or `reply "…"`: a step named for a message. */
function describeStep(step: FakeStep): string {
  if (step.tool) return `tool ${step.tool.name} ${JSON.stringify(step.tool.args).slice(0, 80)}`;
  if (step.structured) return `structured answer ${JSON.stringify(step.structured).slice(0, 80)}`;
  return `reply ${JSON.stringify(step.reply ?? "").slice(0, 80)}`;
}

/**
 * Starts a fake model run (`startFakeModelRun`) playing the script in `file`, as written by
 * `sssf export-script <adw_id> --out file`. Throws ConfigError naming the file and each bad field
 * when it is not a valid script.
 *
 * @example
 * const recorded = await playRecordedRun("test/recorded/greet.json");
 * const outcome = await runWorkflow({ …, config: recorded.configure(loadConfig({ cwd })), sendHooks: [recorded.egressHook] });
 * expect(recorded.divergence()).toEqual([]);
 */
export async function playRecordedRun(
  file: string,
  options: Omit<StartFakeModelRunOptions, "script"> = {},
): Promise<RecordedRun> {
  const script = loadFakeScript(file, "playRecordedRun");
  const run = await startFakeModelRun({ ...options, script });
  return {
    ...run,
    script,
    divergence() {
      const requests = run.server.requests().filter((request) => request.step !== null);
      const played = new Set(requests.map((request) => request.step));
      const problems = requests.flatMap((request, index) =>
        typeof request.step === "number"
          ? []
          : [
              `model request ${index + 1} (${request.api ?? request.path}) is not in the recording: no recorded step answered it`,
            ],
      );
      script.steps.forEach((step, index) => {
        if (!played.has(index))
          problems.push(`recorded step ${index} (${describeStep(step)}) was never played`);
      });
      return problems;
    },
  };
}
