import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../../helpers/sandbox.js";
import { leaksIn, leaksInFiles } from "../../util/secrets/secret-fixtures.js";
import { AGENT_VALUE, ALL, E2E_SECRETS as SECRETS, SSSF_ENV, SUITE_VALUE } from "./secret-run-fixtures.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("sssf db rebuild cannot bring a secret back", () => {
  it("from an old events.jsonl holding raw secrets brings none back", async () => {
    sb.setup([{ name: "leaky", turns: [] }]);
    const adwId = "0ld5e551";
    const dir = sb.sessionDir(adwId);
    mkdirSync(dir, { recursive: true });
    const started = new Date().toISOString();
    // What an sssf before this change wrote: raw secrets in the request, reason, error, envelope JSON…
    const lines = [
      {
        table: "sessions",
        row: {
          adw_id: adwId,
          workflow: "prompt",
          request: `do it ${ALL}`,
          status: "fail",
          accepted: 0,
          reason: `failed: ${ALL}`,
          cwd: sb.dir,
          started_at: started,
          ended_at: started,
          duration_ms: 1,
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cost_usd: 0,
          archived: 0,
          worktree: null,
          branch: null,
          base_ref: null,
          checkout: sb.dir,
        },
      },
      {
        table: "phases",
        row: {
          id: `${adwId}-p01`,
          adw_id: adwId,
          number: 1,
          name: "prompt",
          kind: "agent",
          owner: "leaky",
          description: `answer ${ALL}`,
          status: "fail",
          started_at: started,
          ended_at: started,
          duration_ms: 1,
          error: `assistant reported status "fail": ${ALL}`,
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cost_usd: 0,
          context_tokens: null,
        },
      },
      {
        table: "envelopes",
        row: {
          id: "env_old",
          adw_id: adwId,
          phase_id: `${adwId}-p01`,
          agent: "leaky",
          attempt: 1,
          reason: "initial",
          output_type: "GenericOutput",
          valid: 1,
          status: "fail",
          envelope_json: JSON.stringify({ status: "fail", summary: ALL, artifacts: [] }),
          raw_text: ALL,
          errors: JSON.stringify([`summary: ${ALL}`]),
          created_at: started,
          accepted: 0,
        },
      },
    ];
    writeFileSync(
      path.join(dir, "events.jsonl"),
      `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
    );
    // Rebuilt by a process that has the sssf value in its environment, as the run did.
    const rebuilt = await sb.run(["db", "rebuild"], SSSF_ENV);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const secrets = SECRETS.filter(
      (sample) => sample.secret !== AGENT_VALUE && sample.secret !== SUITE_VALUE,
    );
    const leaks = [
      ...leaksIn("sssf db rebuild", rebuilt.stdout + rebuilt.stderr, secrets),
      ...leaksInFiles(
        readdirSync(path.join(sb.dir, "adws/adw_data"))
          .filter((name) => name.startsWith("sssf.db") && !name.includes(".bak-"))
          .map((name) => path.join(sb.dir, "adws/adw_data", name)),
        secrets,
      ),
    ];
    for (const table of ["sessions", "phases", "envelopes"]) {
      leaks.push(...leaksIn(`table ${table}`, JSON.stringify(sb.query(`SELECT * FROM ${table}`)), secrets));
    }
    for (const args of [
      ["sessions", "--json"],
      ["phases", adwId, "--json"],
      ["envelopes", adwId, "--json"],
    ]) {
      const listed = await sb.run(args, SSSF_ENV);
      leaks.push(...leaksIn(`sssf ${args.join(" ")}`, listed.stdout + listed.stderr, secrets));
    }
    expect(leaks).toEqual([]);
    const [session] = sb.query<{ request: string }>("SELECT request FROM sessions");
    expect(session?.request).toMatch(/^do it anthropic \[redacted:anthropic-api-key\]/);
  });
});
