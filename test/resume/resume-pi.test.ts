import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { cliPath, collect, envelopeJson } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { chatMessages, createPiWorld, messageText, type PiWorld, piBinary } from "../runtimes/pi/pi-world.js";
import { asked, PAIR } from "./pi-pair.js";

let world: PiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

function query<T>(w: PiWorld, sql: string): T[] {
  const db = openRawSqlite(path.join(w.work, "adws/adw_data/sssf.db"), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe("sssf resume with real pi against the fake model", () => {
  it("SIGKILL while the second pi agent waits on the model, then resume: the first is not asked again", {
    timeout: 240_000,
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

    const child = cli(["run", "pair", "go", "--adw-id", "f00d0001"]);
    const done = collect(child);
    await waitFor(() => asked(w, "BETA") === 1, 120_000, "the second agent's model request");
    child.kill("SIGKILL");
    await done;
    for (const { pid } of query<{ pid: number }>(w, "SELECT pid FROM processes WHERE status = 'running'")) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }

    const resumed = await collect(cli(["resume", "f00d0001"]));
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(asked(w, "ALPHA")).toBe(1);
    expect(asked(w, "BETA")).toBe(2);
    // The second agent was given the first's envelope, answered from the journal.
    expect(
      w
        .chats()
        .some((entry) => chatMessages(entry).some((m) => messageText(m).includes("BETA after alpha done"))),
    ).toBe(true);
    expect(
      query(w, "SELECT name, status, replayed_at IS NOT NULL AS replayed FROM phases ORDER BY number"),
    ).toEqual([
      { name: "one", status: "success", replayed: 1 },
      { name: "two", status: "interrupted", replayed: 0 },
      { name: "two", status: "success", replayed: 0 },
    ]);
    expect(query(w, "SELECT status, accepted FROM sessions")).toEqual([{ status: "success", accepted: 1 }]);
    expect(query(w, "SELECT id FROM processes WHERE status = 'running'")).toEqual([]);
    expect(w.server.egress()).toEqual([]);
  });
});
