/**
 * Recorded turns → fake-model steps, every string redacted on the way. Steps are played in order:
 * each matches any request that offers tools (so a CLI's side calls, a title or a router, cannot take
 * one), and the first unused one answers. A response with several tool calls becomes one step per
 * call (a step carries one), so the CLI makes one request more per extra call; the files the calls
 * write are the same.
 */

import type { FakeStep } from "../testing/fake-model/types.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { redactJsonValue } from "../util/secrets/redact-json.js";
import { PLACEHOLDER_START } from "../util/secrets/secret-values.js";
import type { RecordedTurn } from "./recorded-turn.js";

/** How many placeholders a JSON value holds (already redacted on record, or just now). */
function placeholders(value: unknown): number {
  return JSON.stringify(value ?? "").split(PLACEHOLDER_START).length - 1;
}

/** The steps playing one turn, and how many redacted values they hold. */
export function turnSteps(turn: RecordedTurn): { steps: FakeStep[]; redacted: number } {
  const match = { hasTools: true };
  const text = redactSecrets(turn.text);
  const usage = turn.usage === null ? {} : { usage: turn.usage };
  const steps: FakeStep[] = [];
  if (turn.structured !== undefined) {
    steps.push({
      match,
      ...(text === "" ? {} : { reply: text }),
      structured: redactJsonValue(turn.structured),
      ...usage,
    });
  } else if (turn.toolCalls.length === 0) steps.push({ match, reply: text, ...usage });
  turn.toolCalls.forEach((call, index) => {
    const tool = { name: call.name, args: redactJsonValue(call.args) };
    steps.push(
      index === 0 ? { match, ...(text === "" ? {} : { reply: text }), tool, ...usage } : { match, tool },
    );
  });
  return { steps, redacted: placeholders(steps) };
}
