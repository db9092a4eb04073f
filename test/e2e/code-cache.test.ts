import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../helpers/sandbox.js";

// Node ≥ 22.1 caches compiled code itself (module.enableCompileCache); sssf's own cache is for older Nodes.
const ownCache = !("enableCompileCache" in module);

const WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";
import { z } from "zod";
const Extra = z.object({ note: z.string() });
export default defineWorkflow({
  name: "cached",
  description: "a repo workflow, imported by a program restored from the code cache",
  agents: [],
  async run(run) {
    Extra.parse({ note: String(GenericOutput !== undefined) });
    return run.finish({ accepted: true, reason: "ok" });
  },
});
`;

let sb: Sandbox;
let cache: string;
beforeEach(() => {
  sb = new Sandbox();
  cache = path.join(sb.agentsDir, "cache");
  sb.setup([{ name: "helper", turns: [] }]);
  mkdirSync(path.join(sb.dir, "adws"), { recursive: true });
  writeFileSync(path.join(sb.dir, "adws/adw_cached.ts"), WORKFLOW);
});
afterEach(() => sb.cleanup());

const codeFiles = () => {
  try {
    return readdirSync(path.join(cache, "code")).filter((name) => name.endsWith(".v8"));
  } catch {
    return [];
  }
};

async function list(env: Record<string, string> = {}): Promise<string> {
  const result = await sb.run(["list"], { SSSF_CACHE_DIR: cache, ...env });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe("");
  return result.stdout;
}

describe.runIf(ownCache)("the code cache (Node before 22.1)", () => {
  it("is written by the first start, for this user only, and read back by the next without a rewrite", async () => {
    expect(await list()).toContain("cached  adws/adw_cached.ts");
    const [file, ...others] = codeFiles();
    expect(others).toEqual([]);
    expect(file).toMatch(/^[0-9a-f]{32}-v\d+\.\d+\.\d+-\w+-\d+-\d+-other\.v8$/);
    const written = path.join(cache, "code", file as string);
    expect(statSync(written).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(cache, "code")).mode & 0o777).toBe(0o700);
    const bytes = readFileSync(written);
    // Restored from the cache, the program still imports the repo's workflow (through import-module.js).
    expect(await list()).toContain("cached  adws/adw_cached.ts");
    expect(readFileSync(written).equals(bytes)).toBe(true);
  });

  it("keeps each kind of command apart: a run's start does not reuse what `list` compiled", async () => {
    await list();
    const run = await sb.run(["run", "cached", "go", "--in-place"], { SSSF_CACHE_DIR: cache });
    expect(run.code, run.stderr).toBe(0);
    expect(
      codeFiles()
        .map((name) => name.replace(/^.*-/, ""))
        .sort(),
    ).toEqual(["other.v8", "run.v8"]);
  });

  it("throws away a file V8 refuses and writes it anew; the start is not affected", async () => {
    await list();
    const written = path.join(cache, "code", codeFiles()[0] as string);
    writeFileSync(written, Buffer.from("not V8's code cache at all"));
    expect(await list()).toContain("cached  adws/adw_cached.ts");
    expect(readFileSync(written).toString()).not.toContain("not V8's");
    expect(statSync(written).size).toBeGreaterThan(10_000);
  });

  it("is not used in a folder someone else may write into, nor when turned off", async () => {
    mkdirSync(path.join(cache, "code"), { recursive: true });
    chmodSync(path.join(cache, "code"), 0o777);
    expect(await list()).toContain("cached  adws/adw_cached.ts");
    expect(codeFiles()).toEqual([]);
    chmodSync(path.join(cache, "code"), 0o700);
    await list({ NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(codeFiles()).toEqual([]);
    await list({ SSSF_CACHE_DIR: "" });
    expect(codeFiles()).toEqual([]);
  });
});
