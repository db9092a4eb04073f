import type { Command } from "commander";
import { UsageError } from "../../errors/usage-error.js";
import type { EventType } from "../../trace/events.js";
import { EVENT_TYPES } from "../../trace/events.js";
import {
  getSession,
  listEnvelopes,
  listEvents,
  listPhases,
  listSessions,
  listSessionsJson,
} from "../../trace/store-queries.js";
import { jsonTerminalSafe } from "../../util/terminal-text.js";
import { configOption, cwdOption, dbOption } from "../cli-options.js";
import { agentText, formatCost, formatDuration, formatTokens, table } from "../format.js";
import { openReadDb, type ReadOptions } from "../read-context.js";
import { reportError } from "../report-error.js";
import { tailCommand } from "./tail.js";
import { attemptRows, attemptsByPhase } from "./trace-attempts.js";
import {
  envelopesWithModels,
  escalationsByPhase,
  escalationText,
  phasesWithEscalations,
} from "./trace-ladder.js";

interface ListOptions extends ReadOptions {
  json?: boolean;
  limit?: string;
  all?: boolean;
  type?: string;
}

const time = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 19) : "-");

function parseLimit(value: string | undefined): number {
  const limit = Number(value ?? "50");
  if (!Number.isInteger(limit) || limit <= 0)
    throw new UsageError(`--limit: expected a positive whole number, got "${value}"`, "--limit");
  return limit;
}

function parseType(value: string | undefined): EventType | undefined {
  if (value === undefined) return undefined;
  if (!(EVENT_TYPES as readonly string[]).includes(value)) {
    throw new UsageError(
      `--type: unknown event type "${value}" (one of ${EVENT_TYPES.join(", ")})`,
      "--type",
    );
  }
  return value as EventType;
}

/** An event's payload column parsed; text that is not JSON (never written so by sssf) is kept as it is. */
function parsePayload(payload: string): unknown {
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload;
  }
}

/**
 * `sssf sessions | phases | events | envelopes`: a table, or JSON rows with --json. Table cells are made
 * safe for a terminal by `table` (agent text redacted and cut by `agentText` first); the JSON has DEL,
 * C1 and bidi controls as `\uXXXX` escapes (`jsonTerminalSafe`), as JSON already has C0 controls.
 */
export async function listCommand(
  name: string,
  adwId: string | undefined,
  options: ListOptions,
): Promise<number> {
  try {
    const db = await openReadDb(options);
    try {
      if (adwId !== undefined && !(await getSession(db, adwId)))
        throw new UsageError(`no session ${adwId} in the trace database`, "<adw_id>");
      const print = (rows: unknown[], render: () => string) =>
        process.stdout.write(options.json ? `${jsonTerminalSafe(JSON.stringify(rows))}\n` : `${render()}\n`);
      if (name === "sessions" && options.json) {
        // Built by the database in one string: no object per row for large listings.
        const query = { limit: parseLimit(options.limit), includeArchived: Boolean(options.all) };
        process.stdout.write(`${jsonTerminalSafe(await listSessionsJson(db, query))}\n`);
      } else if (name === "sessions") {
        const rows = await listSessions(db, {
          limit: parseLimit(options.limit),
          includeArchived: Boolean(options.all),
        });
        print(rows, () =>
          table(
            ["ADW_ID", "STATUS", "WORKFLOW", "STARTED", "DURATION", "TOKENS", "COST", "REQUEST"],
            rows.map((s) => [
              s.adw_id,
              s.status,
              s.workflow,
              time(s.started_at),
              formatDuration(s.duration_ms),
              formatTokens(s.input_tokens + s.output_tokens),
              formatCost(s.cost_usd),
              agentText(s.request, 60),
            ]),
          ),
        );
      } else if (name === "phases") {
        const rows = await listPhases(db, adwId ?? "");
        const escalations = await escalationsByPhase(db, adwId ?? "");
        const attempts = await attemptsByPhase(db, adwId ?? "");
        const json = phasesWithEscalations(rows, escalations).map((row) => ({
          ...row,
          attempts: attempts.get(row.id) ?? [],
        }));
        print(json, () =>
          table(
            [
              "#",
              "PHASE",
              "KIND",
              "OWNER",
              "STATUS",
              "DURATION",
              "TOKENS IN/OUT",
              "COST",
              "ERROR / ESCALATIONS",
            ],
            rows.flatMap((p) => [
              [
                String(p.number),
                p.name,
                p.kind,
                p.owner,
                p.replayed_at === null ? p.status : `${p.status} (replayed)`,
                formatDuration(p.duration_ms),
                `${formatTokens(p.input_tokens)}/${formatTokens(p.output_tokens)}`,
                formatCost(p.cost_usd),
                agentText(
                  [p.error ?? "", escalationText(escalations.get(p.id))].filter(Boolean).join(" — "),
                  120,
                ),
              ],
              ...attemptRows(p, attempts.get(p.id)),
            ]),
          ),
        );
      } else if (name === "events") {
        const type = parseType(options.type);
        const rows = await listEvents(db, adwId ?? "", type ? { type } : {});
        // --json: each payload as the object it is, not a JSON string inside the JSON.
        const json = () => rows.map((e) => ({ ...e, payload: parsePayload(e.payload) }));
        print(options.json ? json() : rows, () =>
          table(
            ["TIME", "TYPE", "PHASE", "AGENT", "OK", "DURATION", "NAME"],
            rows.map((e) => [
              time(e.started_at).slice(11),
              e.type,
              e.phase_id?.split("-").pop() ?? "-",
              e.agent ?? "-",
              e.ok === null ? "-" : e.ok ? "yes" : "no",
              formatDuration(e.duration_ms),
              agentText(e.name, 90),
            ]),
          ),
        );
      } else {
        const rows = await envelopesWithModels(db, adwId ?? "", await listEnvelopes(db, adwId ?? ""));
        print(rows, () =>
          table(
            ["ATTEMPT", "PHASE", "AGENT", "MODEL", "REASON", "TYPE", "VALID", "STATUS", "ERRORS / SUMMARY"],
            rows.map((e) => {
              const errors = JSON.parse(e.errors) as { path: string; message: string }[];
              const summary = e.envelope_json
                ? ((JSON.parse(e.envelope_json) as { summary?: string }).summary ?? "")
                : "";
              return [
                String(e.attempt),
                e.phase_id.split("-").pop() ?? "",
                e.agent,
                e.model ?? "-",
                e.reason,
                e.output_type,
                e.valid ? "yes" : "no",
                e.status ?? "-",
                agentText(
                  e.valid
                    ? summary
                    : errors.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; "),
                  90,
                ),
              ];
            }),
          ),
        );
      }
      return 0;
    } finally {
      await db.close();
    }
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf sessions`, and `sssf phases|events|envelopes <adw_id>`: listings of the trace. */
export function registerTraceLists(program: Command): void {
  for (const [name, description, needsId] of [
    ["sessions", "list sessions, newest first", false],
    ["phases", "list the phases of a session", true],
    ["events", "list the trace events of a session", true],
    ["envelopes", "list every envelope attempt of a session", true],
  ] as const) {
    const command = program.command(name).description(description);
    if (needsId) command.argument("<adw_id>", "session id");
    command
      .option("--json", "print JSON instead of a table")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption());
    if (name === "sessions")
      command
        .option("--limit <n>", "at most this many sessions", "50")
        .option("--all", "include archived sessions");
    if (name === "events")
      command
        .option("--type <type>", "only events of this type (tool_call, error, …)")
        .option("--follow", "print the run as sssf tail --from-start does and follow it until it ends");
    command.action(async (...args: unknown[]) => {
      const adwId = needsId ? (args[0] as string) : undefined;
      const options = (needsId ? args[1] : args[0]) as Record<string, unknown>;
      if (name === "events" && options.follow === true && adwId !== undefined) {
        process.exitCode = await tailCommand(adwId, { ...options, fromStart: true });
        return;
      }
      process.exitCode = await listCommand(name, adwId, options);
    });
  }
}
