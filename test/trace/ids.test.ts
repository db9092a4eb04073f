import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/trace/ids.js";

describe("newId", () => {
  it("is unique and sorted in creation order over 200k ids", () => {
    const ids: string[] = [];
    for (let index = 0; index < 200_000; index += 1) ids.push(newId("evt"));
    expect(new Set(ids).size).toBe(ids.length);
    for (let index = 1; index < ids.length; index += 1) {
      if (!(ids[index - 1]! < ids[index]!))
        throw new Error(`out of order at ${index}: ${ids[index - 1]} ${ids[index]}`);
    }
    expect(ids[0]).toMatch(/^evt_[0-9a-z]{21}$/);
  });

  it("mints 100,000 distinct ids in a row", () => {
    const ids = new Set<string>();
    for (let index = 0; index < 100_000; index += 1) ids.add(newId("evt"));
    expect(ids.size).toBe(100_000);
  });

  it("sorts ids of a later process after this one's and never collides with them", () => {
    const mine = Array.from({ length: 1000 }, () => newId("evt"));
    const module = fileURLToPath(new URL("../../src/trace/ids.ts", import.meta.url));
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { newId } = await import(${JSON.stringify(module)});
       console.log(JSON.stringify(Array.from({ length: 1000 }, () => newId("evt"))));`,
      ],
      { encoding: "utf8" },
    );
    expect(child.status, child.stderr).toBe(0);
    const theirs = JSON.parse(child.stdout) as string[];
    expect(theirs[0]! > mine[mine.length - 1]!).toBe(true);
    expect(new Set([...mine, ...theirs]).size).toBe(2000);
    // The per-process tag differs, so ids minted in the same millisecond still differ.
    expect(theirs[0]!.slice(-8)).not.toBe(mine[0]!.slice(-8));
  });
});
