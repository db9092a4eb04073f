import type { TraceSql } from "../../trace/store.js";
import type { UsageReport } from "./api-types.js";

const SUMS = `sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
  sum(cost_usd) AS cost_usd`;
const PHASE_SUMS = SUMS.replace(/sum\((\w+)\)/g, "sum(p.$1)");

/**
 * Spend over the whole trace: per UTC day of the sessions' start, per workflow (from sessions), per
 * agent (agent phases by owner) and per model and coding agent (agent phases joined to their agent
 * session). Archived sessions count. Rejects only with what the database throws.
 */
export async function readUsage(db: TraceSql): Promise<UsageReport> {
  return {
    days: (await db.all(
      `SELECT substr(started_at, 1, 10) AS day, count(*) AS runs, ${SUMS}
         FROM sessions GROUP BY day ORDER BY day`,
    )) as UsageReport["days"],
    workflows: (await db.all(
      `SELECT workflow, count(*) AS runs, ${SUMS} FROM sessions GROUP BY workflow
         ORDER BY cost_usd DESC, workflow`,
    )) as UsageReport["workflows"],
    agents: (await db.all(
      `SELECT p.owner AS agent, count(*) AS runs, ${PHASE_SUMS} FROM phases p
         WHERE p.kind = 'agent' GROUP BY p.owner ORDER BY cost_usd DESC, agent`,
    )) as UsageReport["agents"],
    models: (await db.all(
      `SELECT coalesce(nullif(a.model, ''), 'unknown') AS model,
           coalesce(nullif(a.coding_agent, ''), 'unknown') AS coding_agent, count(*) AS runs, ${PHASE_SUMS}
         FROM phases p LEFT JOIN agent_sessions a ON a.adw_id = p.adw_id AND a.agent = p.owner
         WHERE p.kind = 'agent' GROUP BY 1, 2 ORDER BY cost_usd DESC, model`,
    )) as UsageReport["models"],
  };
}
