/**
 * `agents[].models`: a model ladder. After an agent phase's corrections are exhausted on one model
 * (the envelope stayed invalid, or its gates still fail), the phase starts again, fresh, on the next
 * (docs/reliability.md). `model` beside `models` must be `models[0]` (the rung a phase starts on);
 * anything else is refused at load time, one line, exit 2. Whether a rung's model exists is the
 * runtime's to say: it refuses an unknown model at that rung's first send, naming it.
 */
import type { ConfigProblem } from "../errors/config-error.js";

/** The wire `models` beside `model`, as the agent's model and ladder; problems appended. */
export function modelLadder(
  where: string,
  model: string | undefined,
  models: readonly string[] | undefined,
  defaultModel: string,
  problems: ConfigProblem[],
): { model: string; models?: string[] } {
  if (models === undefined) return { model: model ?? defaultModel };
  const first = models[0];
  if (first === undefined) {
    problems.push({
      path: `${where}.models`,
      message: "an empty ladder; list at least one model or drop models",
    });
    return { model: model ?? defaultModel };
  }
  const seen = new Set<string>();
  models.forEach((entry, position) => {
    if (seen.has(entry))
      problems.push({
        path: `${where}.models[${position}]`,
        message: `${JSON.stringify(entry)} is already on the ladder; each rung names another model`,
      });
    seen.add(entry);
  });
  if (model !== undefined && model !== first)
    problems.push({
      path: `${where}.model`,
      message: `${JSON.stringify(model)} is not models[0] (${JSON.stringify(first)}); a phase starts on models[0]: drop model or make it the first rung`,
    });
  return models.length === 1 ? { model: first } : { model: first, models: [...models] };
}
