import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  CHECKOUT_LOCK_NAME,
  CHECKOUT_READERS_NAME,
  withCheckoutRead,
  withCheckoutWrite,
} from "../../src/workspace/checkout-lock.js";
import { repoRoot } from "../helpers/sandbox.js";
import { gate, sleep } from "../helpers/wait.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function scratch(): string {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-checkout-lock-"));
  return dir;
}

const LOCK_MODULE = fileURLToPath(new URL("../../src/workspace/checkout-lock.ts", import.meta.url));

/**
 * A process taking turns from `start` until `end` (ms since the epoch, so that every process, however
 * slow to start, takes turns at the same time as the others): as the writer it marks the checkout
 * "merging" for its whole turn; as a reader it fails (exit 3) when it finds the mark during its turn.
 * One that starts late still takes one turn.
 */
const TAKER = `const { withCheckoutRead, withCheckoutWrite } = await import(${JSON.stringify(LOCK_MODULE)});
const { existsSync, rmSync, writeFileSync } = await import("node:fs");
const [common, role, start, end] = process.argv.slice(1);
const mark = common + "/merging";
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
await pause(Number(start) - Date.now());
do {
  if (role === "writer") {
    await withCheckoutWrite(common, async () => {
      writeFileSync(mark, "");
      await pause(3);
      rmSync(mark);
    });
    await pause(2);
  } else {
    await withCheckoutRead(common, async () => {
      for (let k = 0; k < 3; k++) {
        if (existsSync(mark)) process.exit(3);
        await pause(1);
      }
    });
  }
} while (Date.now() < Number(end));`;

function take(common: string, role: "reader" | "writer", start: number, end: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", TAKER, common, role, String(start), String(end)],
      { cwd: repoRoot, stdio: "ignore" },
    );
    child.on("error", reject);
    child.on("close", resolve);
  });
}

describe("turn-taking at the operator's checkout", () => {
  it("never lets a snapshot in while a merge holds its turn, across processes", {
    timeout: 60_000,
  }, async () => {
    const common = scratch();
    // Every process starts its turns 4 s from now (tsx needs a second or two to start each), for 2 s.
    const start = Date.now() + 4000;
    const end = start + 2000;
    const codes = await Promise.all([
      take(common, "writer", start, end),
      take(common, "writer", start, end),
      ...Array.from({ length: 4 }, () => take(common, "reader", start, end)),
    ]);
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    expect(readdirSync(common).sort()).toEqual([CHECKOUT_READERS_NAME]);
  });

  it("lets a merge in only once the snapshots in their sections have ended, and later snapshots wait for it", async () => {
    const common = scratch();
    const order: string[] = [];
    const readerGo = gate();
    const reader = withCheckoutRead(common, async () => {
      order.push("reader in");
      await readerGo.opened;
      order.push("reader out");
    });
    await sleep(20);
    const writer = withCheckoutWrite(common, async () => {
      order.push("merge in");
      await sleep(80);
      order.push("merge out");
    });
    await sleep(60);
    expect(order).toEqual(["reader in"]);
    readerGo.open();
    await sleep(20);
    const late = withCheckoutRead(common, async () => {
      order.push("late reader");
    });
    await Promise.all([reader, writer, late]);
    expect(order).toEqual(["reader in", "reader out", "merge in", "merge out", "late reader"]);
    expect(readdirSync(path.join(common, CHECKOUT_READERS_NAME))).toEqual([]);
  });

  it("never makes snapshots wait for each other", async () => {
    const common = scratch();
    const inside: number[] = [];
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        withCheckoutRead(common, async () => {
          inside.push(index);
          most = Math.max(most, inside.length);
          await sleep(40);
          inside.splice(inside.indexOf(index), 1);
        }),
      ),
    );
    expect(most).toBe(6);
  });

  it("does not wait for a snapshot whose process died in its section", async () => {
    const common = scratch();
    const readers = path.join(common, CHECKOUT_READERS_NAME);
    mkdirSync(readers);
    const child = spawnSync(process.execPath, ["-e", ""]);
    const stale = path.join(readers, `${child.pid}-left.json`);
    writeFileSync(
      stale,
      JSON.stringify({ pid: child.pid, host: hostname(), started_at: "2026-01-01T00:00:00Z" }),
    );
    expect(await withCheckoutWrite(common, async () => "merged")).toBe("merged");
    expect(readdirSync(readers)).toEqual([]);
  });

  it("does not wait for a merge whose process died holding the lock", async () => {
    const common = scratch();
    const child = spawnSync(process.execPath, ["-e", ""]);
    writeFileSync(
      path.join(common, CHECKOUT_LOCK_NAME),
      JSON.stringify({ pid: child.pid, host: hostname(), started_at: "2026-01-01T00:00:00Z", token: "gone" }),
    );
    expect(await withCheckoutRead(common, async () => "read")).toBe("read");
    expect(readdirSync(common).sort()).toEqual([CHECKOUT_READERS_NAME]);
    expect(readdirSync(path.join(common, CHECKOUT_READERS_NAME))).toEqual([]);
  });

  it("releases its turn however the work ends", async () => {
    const common = scratch();
    await expect(
      withCheckoutRead(common, async () => {
        throw new Error("git status failed");
      }),
    ).rejects.toThrow("git status failed");
    await expect(
      withCheckoutWrite(common, async () => {
        throw new Error("merge refused");
      }),
    ).rejects.toThrow("merge refused");
    expect(await withCheckoutWrite(common, async () => "free")).toBe("free");
    expect(readdirSync(common).sort()).toEqual([CHECKOUT_READERS_NAME]);
  });
});
