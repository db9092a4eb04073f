import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { cliPath, collect, envelopeJson } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { asked, PAIR } from "../resume/pi-pair.js";
import { createPiWorld, type PiWorld, piBinary } from "../runtimes/pi/pi-world.js";
import type { ReplayJson } from "./replay-world.js";

let world: PiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

/** PAIR with `two` now asking for a `ticket` field the recorded reply lacks. */
const PAIR_WITH_TICKET = PAIR.replace(
  'import { defineWorkflow, GenericOutput } from "sssf";',
  `import { defineOutputType, defineWorkflow, EnvelopeBase, GenericOutput, z } from "sssf";
const Ticketed = defineOutputType("Ticketed", EnvelopeBase.extend({ ticket: z.string() }), { status: "success", ticket: "T-1" });`,
).replace(
  'phase.call({ outputType: GenericOutput, prompt: "BETA',
  'phase.call({ outputType: Ticketed, prompt: "BETA',
);

describe("sssf replay of runs recorded with real pi against the fake model", () => {
  it("a run killed, resumed and finished replays the same without a model request; a new required field is now rejected", {
    timeout: 300_000,
  }, async () => {
    world = await createPiWorld({
      steps: [
        { match: { text: "ALPHA" }, reply: envelopeJson({ summary: "alpha done", artifacts: [] }) },
        { match: { text: "BETA" }, hang: true },
        { match: { text: "BETA" }, reply: envelopeJson({ summary: "beta done", artifacts: [] }) },
      ],
    });
    const w = world;
    for (const name of ["first", "second"]) {
      const dir = path.join(w.work, "adws/adw_data/prompt_engineering", name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "system.md"), "You are a test agent. End with the JSON report.\n");
      writeFileSync(path.join(dir, "user.md"), "{{prompt}}\n");
    }
    writeFileSync(path.join(w.work, "adws/adw_pair.ts"), PAIR);
    mkdirSync(path.join(w.work, "adws/adw_sssf_config"), { recursive: true });
    writeFileSync(
      path.join(w.work, "adws/adw_sssf_config/sssf.config.yaml"),
      JSON.stringify({
        agents: ["first", "second"].map((name) => ({
          name,
          coding_agent: "pi",
          model: "",
          command: [piBinary],
          env: w.env,
        })),
      }),
    );
    const cli = (args: string[]) =>
      spawn(process.execPath, [cliPath, ...args], {
        cwd: w.work,
        env: { ...process.env, ...w.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });

    // Recorded the hard way: killed while `two` waits on the model, then resumed to its end.
    const child = cli(["run", "pair", "go", "--adw-id", "feed0001"]);
    const done = collect(child);
    await waitFor(() => asked(w, "BETA") === 1, 120_000, "the second agent's model request");
    child.kill("SIGKILL");
    await done;
    const db = openRawSqlite(path.join(w.work, "adws/adw_data/sssf.db"), { readonly: true });
    const running = db.prepare("SELECT pid FROM processes WHERE status = 'running'").all() as {
      pid: number;
    }[];
    db.close();
    for (const { pid } of running) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    const resumed = await collect(cli(["resume", "feed0001"]));
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const requests = w.chats().length;

    const same = await collect(cli(["replay", "feed0001", "--json"]));
    expect(same.code, same.stdout + same.stderr).toBe(0);
    const report = JSON.parse(same.stdout) as ReplayJson;
    // The interrupted attempt of `two` was run again: position 2 answers from the attempt that completed.
    expect(report.replays[0]?.phases.map((p) => `${p.phase} ${p.outcome} ${p.recorded_sends}`)).toEqual([
      "one same 1",
      "two same 1",
    ]);
    expect(w.chats().length).toBe(requests);

    writeFileSync(path.join(w.work, "adws/adw_pair.ts"), PAIR_WITH_TICKET);
    const changed = await collect(cli(["replay", "feed0001", "--json"]));
    expect(changed.code, changed.stdout + changed.stderr).toBe(1);
    const two = (JSON.parse(changed.stdout) as ReplayJson).replays[0]?.phases[1];
    expect(two?.outcome).toBe("now rejected");
    expect(two?.detail).toMatch(/^schema: ticket: /);
    expect(w.chats().length).toBe(requests);
    expect(w.server.egress()).toEqual([]);
  });
});
