import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson, repoRoot, Sandbox } from "../helpers/sandbox.js";

let sb: Sandbox;
let locker: ChildProcess | null = null;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => {
  locker?.kill("SIGKILL");
  locker = null;
  sb.cleanup();
});

// Another process holding the trace file exclusively for a while (a second sssf migrating, recovering
// the WAL or checkpointing).
const LOCKER = `
const db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(process.argv[1]);
db.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; SELECT count(*) FROM sessions");
process.stdout.write("locked\\n");
setTimeout(() => { db.exec("COMMIT"); db.close(); process.stdout.write("released\\n"); }, Number(process.argv[3]));
`;

/** Starts the locker on `file` for `ms`; resolves once it holds the lock, with a promise of its release. */
function lockFor(file: string, ms: number): Promise<{ released: Promise<number> }> {
  const child = spawn(process.execPath, ["-e", LOCKER, file, repoRoot, String(ms)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  locker = child;
  let releasedAt = 0;
  const released = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(releasedAt) : reject(new Error(`locker exited ${code}`)),
    );
  });
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (text: string) => {
      if (text.includes("released")) releasedAt = Date.now();
      if (text.includes("locked")) resolve({ released });
    });
    released.catch(reject);
  });
}

describe("a trace another process holds locked for a moment", () => {
  it("is waited for, on every driver: a run and the read commands succeed once it is free", async () => {
    sb.setup([
      {
        name: "assistant",
        turns: [
          { reply: envelopeJson({ summary: "first" }) },
          { reply: envelopeJson({ summary: "second" }) },
        ],
      },
    ]);
    const first = await sb.run(["run", "prompt", "first", "--agent", "assistant"]);
    expect(first.code, first.stderr).toBe(0);
    const file = path.join(sb.dir, "adws/adw_data/sssf.db");

    // A run opening the trace for writing (journal mode, migration) while the file is locked.
    const held = await lockFor(file, 1500);
    const second = await sb.run(["run", "prompt", "second", "--agent", "assistant"]);
    const releasedAt = await held.released;
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(releasedAt).toBeGreaterThan(0);

    // Commands that only read it.
    const again = await lockFor(file, 1000);
    const [sessions, events] = await Promise.all([
      sb.run(["sessions", "--json"]),
      sb.run(["events", adwIdFrom(second.stdout), "--json"]),
    ]);
    await again.released;
    for (const result of [sessions, events]) {
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    }
    expect((JSON.parse(sessions.stdout) as unknown[]).length).toBe(2);
  });
});
