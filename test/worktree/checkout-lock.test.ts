import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CHECKOUT_READERS_NAME,
  withCheckoutRead,
  withCheckoutWrite,
} from "../../src/workspace/checkout-lock.js";
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

describe("turn-taking at the operator's checkout", () => {
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
