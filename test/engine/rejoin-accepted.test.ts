import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow } from "../../src/api/run-api.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import { defineGate } from "../../src/gates/gate.js";
import { runWorkflow } from "../../src/library.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { latestAcceptedEnvelope } from "../../src/trace/store-queries.js";
import { createRepo, ok, type Repo } from "./workflow-fixture.js";

let repo: Repo | undefined;
afterEach(() => repo?.cleanup());

const refuseAll = defineGate<object>("refuse_all", (_envelope, _context, report) => {
  report.check("anything", false, "refused on purpose");
});

/** a answers; b's envelope is valid but refused by a gate (or says fail); the run then fails. */
function firstRun(bGate: boolean) {
  return defineWorkflow({
    name: "first",
    description: "",
    agents: ["a", "b"],
    async run(run, request) {
      await run.agent("one", { owner: "a", description: "" }, (p) =>
        p.call({ outputType: GenericOutput, prompt: request }),
      );
      await run.agent("two", { owner: "b", description: "", retries: 0 }, (p) =>
        p.call({ outputType: GenericOutput, prompt: request, gates: bGate ? [refuseAll] : [] }),
      );
      return run.finish({ accepted: true });
    },
  });
}

const thenC = defineWorkflow({
  name: "then",
  description: "",
  agents: ["c"],
  async run(run, request) {
    await run.agent("three", { owner: "c", description: "" }, (p) =>
      p.call({ outputType: GenericOutput, prompt: request }),
    );
    return run.finish({ accepted: true });
  },
});

function previousSeenByC(r: Repo): string {
  const prompt = r.agents.c?.sends()[0]?.prompt ?? "";
  return prompt.slice(prompt.indexOf("## previous_envelope"));
}

describe("a rejoin hands the next agent only an envelope that was accepted", () => {
  it("not one the gates rejected: the last accepted one", async () => {
    repo = createRepo({
      a: [{ reply: ok({ summary: "from a" }) }],
      b: [{ reply: ok({ summary: "from b, gated" }) }],
      c: [{ reply: ok({ summary: "from c" }) }],
    });
    const first = await runWorkflow({ workflow: firstRun(true), request: "go", config: repo.config });
    expect(first.exitCode).toBe(1);
    expect(repo.query("SELECT agent, valid, accepted FROM envelopes ORDER BY agent")).toEqual([
      { agent: "a", valid: 1, accepted: 1 },
      { agent: "b", valid: 1, accepted: 0 },
    ]);
    await runWorkflow({ workflow: thenC, request: "go", config: repo.config, adwId: first.adwId });
    expect(previousSeenByC(repo)).toContain('"summary": "from a"');
    expect(previousSeenByC(repo)).not.toContain("from b");
  });

  it("not one whose status is fail", async () => {
    repo = createRepo({
      a: [{ reply: ok({ summary: "from a" }) }],
      b: [{ reply: JSON.stringify({ status: "fail", summary: "from b, failed" }) }],
      c: [{ reply: ok() }],
    });
    const first = await runWorkflow({ workflow: firstRun(false), request: "go", config: repo.config });
    expect(first.exitCode).toBe(1);
    await runWorkflow({ workflow: thenC, request: "go", config: repo.config, adwId: first.adwId });
    expect(previousSeenByC(repo)).toContain('"summary": "from a"');
    expect(previousSeenByC(repo)).not.toContain("from b");
  });

  it("code phases' envelopes are rows and files like an agent's, and a rejoin hands on the last accepted one", async () => {
    repo = createRepo({ c: [{ reply: ok() }] });
    const codeOnly = defineWorkflow({
      name: "code",
      description: "",
      agents: [],
      async run(run) {
        await run.code("hand", { description: "" }, (p) =>
          p.handOff(GenericOutput, {
            status: "success",
            summary: "from code",
            artifacts: [],
            notes_for_next_agent: "",
          }),
        );
        await run.code("hand-fail", { description: "" }, (p) =>
          p.handOff(GenericOutput, {
            status: "fail",
            summary: "code found a failure",
            artifacts: [],
            notes_for_next_agent: "",
          }),
        );
        return run.finish({ accepted: true });
      },
    });
    const first = await runWorkflow({ workflow: codeOnly, request: "go", config: repo.config });
    expect(first.exitCode).toBe(0);
    expect(
      repo.query(
        "SELECT agent, attempt, output_type, valid, status, accepted FROM envelopes ORDER BY created_at",
      ),
    ).toEqual([
      { agent: "code", attempt: 1, output_type: "GenericOutput", valid: 1, status: "success", accepted: 1 },
      { agent: "code", attempt: 1, output_type: "GenericOutput", valid: 1, status: "fail", accepted: 0 },
    ]);
    const file = path.join(first.sessionDir, "code/p01-hand.envelope.json");
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).summary).toBe("from code");
    expect(existsSync(path.join(first.sessionDir, "code/p02-hand-fail.envelope.json"))).toBe(true);
    await runWorkflow({ workflow: thenC, request: "go", config: repo.config, adwId: first.adwId });
    expect(previousSeenByC(repo)).toContain('"summary": "from code"');
    expect(previousSeenByC(repo)).not.toContain("code found a failure");
  });

  it("records rebuilt from before the accepted column count by the same rule", async () => {
    repo = createRepo({ a: [] });
    const db = await openTraceStore(repo.config.dbPath);
    try {
      const insert = (...values: unknown[]) =>
        db.run(
          `INSERT INTO envelopes (id, adw_id, phase_id, agent, attempt, reason, output_type, valid, status,
         envelope_json, raw_text, errors, created_at, accepted) VALUES (?, 's', ?, 'x', 1, 'initial', 'T', 1, ?, ?, '', '[]', ?, NULL)`,
          values,
        );
      await insert("e1", "s-p01", "success", '{"n":1}', "2026-01-01T00:00:01Z");
      await insert("e2", "s-p02", "fail", '{"n":2}', "2026-01-01T00:00:02Z");
      expect(await latestAcceptedEnvelope(db, "s")).toEqual({ n: 1 });
    } finally {
      await db.close();
    }
  });
});
