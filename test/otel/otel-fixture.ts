import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { PhaseRow, SessionRow } from "../../src/trace/events.js";
import { git } from "../code/fixtures.js";
import { envelopeJson, type Sandbox } from "../helpers/sandbox.js";
import type { ReceivedSpan } from "./otlp-receiver.js";

/** A secret the run's agent env names (so sssf registers it) and its tool call writes. */
export const PLANTED_SECRET = "otel-planted-secret-7f3a9c2e51";
/** A token of a well-known shape the redaction finds without being told. */
export const PLANTED_TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

/** What the builder writes: both secrets, in the tool call's arguments too. */
const SLUG_SOURCE = `export const slug = 1; // ${PLANTED_SECRET} ${PLANTED_TOKEN}\n`;

/** What the builder reports about its one send. */
export const BUILDER_USAGE = {
  input_tokens: 1234,
  output_tokens: 321,
  cache_read_tokens: 456,
  cache_write_tokens: 78,
  cost: 0.0125,
};

/**
 * A git repo with one scripted exec builder (model `acme/scripted-1`) that writes `src/slug.js` with the
 * planted secrets in one tool call, and a `test` suite that passes: `sssf run build-test` makes a
 * build (agent, gates), a test (code, suite) and a commit phase.
 */
export function buildTestRepo(sb: Sandbox, top: Record<string, unknown> = {}): void {
  sb.setup(
    [
      {
        name: "builder",
        extra: { model: "acme/scripted-1", env: { DEPLOY_TOKEN: PLANTED_SECRET } },
        turns: [
          {
            tool_calls: [
              {
                tool: "write",
                write_file: { path: "src/slug.js", content: SLUG_SOURCE },
                args: { path: "src/slug.js", content: SLUG_SOURCE },
              },
            ],
            usage: BUILDER_USAGE,
            reply: envelopeJson({
              summary: "added slug",
              changed_files: ["src/slug.js"],
              commit_message: "Add slug helper",
            }),
          },
        ],
      },
    ],
    { quality: { test: { command: [process.execPath, "-e", "process.exit(0)"] } }, ...top },
  );
  writeFileSync(
    path.join(sb.dir, ".gitignore"),
    "adws/adw_data/sessions/\nadws/adw_data/*.db*\nadws/adw_data/.worktrees/\n",
  );
  git(sb.dir, "init", "-q", "-b", "main");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

/** The span named `name`, exactly one. */
export function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

/**
 * Spans without their ids, each naming its parent by name instead, sorted: what must be the same when
 * one run is exported twice.
 */
export function shapeOf(spans: ReceivedSpan[]): unknown[] {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  return spans
    .map((span) => ({
      name: span.name,
      parent: span.parentSpanId === "" ? null : (byId.get(span.parentSpanId)?.name ?? "missing"),
      startMs: span.startMs,
      endMs: span.endMs,
      statusCode: span.statusCode,
      attributes: span.attributes,
    }))
    .sort((a, b) => a.startMs - b.startMs || a.name.localeCompare(b.name));
}

/** The run's session and phases as the trace stored them. */
export function storedRun(sb: Sandbox, adwId: string): { session: SessionRow; phases: PhaseRow[] } {
  const [session] = sb.query<SessionRow>("SELECT * FROM sessions WHERE adw_id = ?", adwId);
  if (session === undefined) throw new Error(`no session ${adwId}`);
  const phases = sb.query<PhaseRow>("SELECT * FROM phases WHERE adw_id = ? ORDER BY number", adwId);
  return { session, phases };
}
