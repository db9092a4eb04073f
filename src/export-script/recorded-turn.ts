/**
 * What export-script reads back from an agent's records: its sends, each a list of model turns (the
 * text, the tool calls with their arguments, the tokens), in the order the model produced them.
 */

import type { FakeUsage } from "../testing/fake-model/types.js";

/** One tool call the model made, by the tool's own name (`write`, `Write`, `exec_command`). */
export interface RecordedToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** One model response. */
export interface RecordedTurn {
  text: string;
  toolCalls: RecordedToolCall[];
  /** A native structured answer (claude's `StructuredOutput` call), played back as `structured`. */
  structured?: Record<string, unknown>;
  usage: FakeUsage | null;
}

/** One send to the agent: the turns between its prompt and its final answer. */
export interface RecordedSend {
  turns: RecordedTurn[];
}

/** What a reader made of a stream: the sends, and what it had to leave out (said to the user). */
export interface ReadTurns {
  sends: RecordedSend[];
  notes: string[];
}

/**
 * A reader of one CLI's stream, chosen by what the stream holds (its first event), never by the
 * runtime's name: `recognises` looks at the first parsed line.
 */
export interface StreamReader {
  /** How the stream is named in messages (`pi --mode json`). */
  readonly stream: string;
  recognises(first: Record<string, unknown>): boolean;
  /**
   * When the stream lacks what the model sent, the agent's own session files to read instead (found
   * under the agent's folder); `read` then gets their lines.
   */
  sessionFiles?(agentRoot: string): string[];
  read(events: Record<string, unknown>[]): ReadTurns;
}

/** A plain object, or an empty one. */
export const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** A non-negative integer token count, or undefined. */
export const tokens = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/** A usage with only the counts that were given, or null when none was. */
export function usageOf(counts: FakeUsage): FakeUsage | null {
  const kept = Object.fromEntries(Object.entries(counts).filter(([, value]) => value !== undefined));
  return Object.keys(kept).length === 0 ? null : (kept as FakeUsage);
}

/** Tool arguments as an object: a JSON string is parsed, anything else is wrapped as `{input}`. */
export function argsOf(value: unknown): Record<string, unknown> {
  if (typeof value === "string") {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {}
    return { input: value };
  }
  return asRecord(value);
}
