import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";

const src = path.join(repoRoot, "src");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.name.endsWith(".ts") ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((m) =>
    path.resolve(path.dirname(file), m[1] ?? ""),
  );
}

const layer = (file: string) => path.relative(src, file).split(path.sep)[0] ?? "";

describe("dependencies point down", () => {
  const files = filesUnder(src);

  it("runtimes, gates, envelope, trace and errors never import the engine, the CLI or workflows", () => {
    const leaves = new Set(["runtimes", "gates", "envelope", "trace", "errors", "util"]);
    const offenders = files
      .filter((f) => leaves.has(layer(f)))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => ["engine", "cli", "workflows"].includes(layer(i)))
          .map((i) => `${path.relative(src, f)} → ${path.relative(src, i)}`),
      );
    expect(offenders).toEqual([]);
  });

  it("nothing outside the CLI imports the CLI", () => {
    const offenders = files
      .filter((f) => layer(f) !== "cli")
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => layer(i) === "cli")
          .map((i) => `${path.relative(src, f)} → ${path.relative(src, i)}`),
      );
    expect(offenders).toEqual([]);
  });

  it("only the runtime registry branches on runtime names", () => {
    const offenders = files
      .filter(
        (f) =>
          !f.includes(`${path.sep}runtimes${path.sep}`) && !f.endsWith("config.ts") && !f.includes("config-"),
      )
      .filter((f) => /codingAgent\s*===\s*"|coding_agent\s*===\s*"/.test(readFileSync(f, "utf8")));
    expect(offenders).toEqual([]);
  });
});
