import { z } from "zod";

/**
 * The `trace` and `engine` sections of the config on the wire: where a shared PostgreSQL trace lives
 * and how processes connect to it, and the Restate cluster's addresses. Built on call, as the rest of
 * the config schema is.
 */
const POSTGRES_URL = /^postgres(ql)?:\/\/./i;

/** `trace:` — a PostgreSQL trace shared by every worker, CLI and UI. */
export function traceSectionSchema() {
  return z
    .object({
      url: z
        .string()
        .regex(POSTGRES_URL, { error: 'expected a "postgres://host/database" URL' })
        .optional()
        .describe(
          "One PostgreSQL trace for every worker, CLI and UI (postgres://user@host:5432/db; the password from PGPASSWORD or ~/.pgpass). Wins over observability.db; the SSSF_DB environment variable wins over both.",
        ),
      postgres: z
        .object({
          max_connections: z
            .int()
            .min(1)
            .max(100)
            .default(4)
            .describe(
              "The most connections one sssf process (a worker and all its runs, a CLI, the UI) holds to a PostgreSQL trace; followers LISTEN on one more.",
            ),
          listen_url: z
            .string()
            .regex(POSTGRES_URL, { error: 'expected a "postgres://host/database" URL' })
            .optional()
            .describe(
              "Where followers (sssf tail, sssf run --engine restate) LISTEN for new rows: a session-mode connection. Behind PgBouncer in transaction mode, the server's own address; default the trace URL.",
            ),
        })
        .strict()
        .prefault({})
        .describe("How processes connect to a PostgreSQL trace (docs/cluster.md#scale)."),
    })
    .strict()
    .prefault({});
}

/** `engine:` — running on a Restate cluster; `seconds` is the config's positive-seconds schema. */
export function engineSectionSchema(seconds: z.ZodNumber) {
  return z
    .object({
      restate: z
        .object({
          ingress: z
            .url()
            .optional()
            .describe("Restate's ingress URL (sssf run --engine restate, sssf approve)."),
          admin: z.url().optional().describe("Restate's admin URL (sssf pool registers there)."),
          pool: z
            .url()
            .optional()
            .describe("The sssf pool's URL (sssf worker joins it, sssf workers asks it)."),
          run_timeout_seconds: seconds
            .default(86_400)
            .describe("Restate's inactivity and abort timeouts for a run: longer than the longest run."),
        })
        .strict()
        .prefault({})
        .describe("Running on a Restate cluster (docs/cluster.md)."),
    })
    .strict()
    .prefault({});
}
