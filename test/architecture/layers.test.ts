import { existsSync, readdirSync, readFileSync } from "node:fs";
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
    // src/bundle.ts is the build's entry: the one module of the program and the library together.
    const buildEntry = path.join(src, "bundle.ts");
    const offenders = files
      .filter((f) => layer(f) !== "cli" && f !== buildEntry)
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

/**
 * Every top-level folder of src/ and its place: a folder may import only folders of a lower rank
 * (and itself). A new folder fails the first test until it is placed here and in docs/architecture.md.
 */
const RANKS: Record<string, number> = {
  util: 0,
  errors: 1,
  trace: 2,
  sandbox: 2,
  runtimes: 3,
  config: 4,
  code: 5,
  otel: 5,
  gates: 6,
  envelope: 7,
  api: 8,
  session: 9,
  workspace: 10,
  boundary: 11,
  approval: 11,
  engine: 12,
  workflows: 13,
  testing: 13,
  ui: 13,
  replay: 13,
  "dry-run": 13,
  demo: 14,
  cluster: 14,
  "export-script": 14,
  cli: 15,
  "": 16, // src/index.ts and src/library.ts: the library's composition root; src/bundle.ts: the build's
};

/** Imports that name a module of src/ (a template of generated code can hold import-like text). */
const modulesImportedBy = (file: string) =>
  importsOf(file)
    .map((i) => i.replace(/\.js$/, ".ts"))
    .filter((i) => existsSync(i) || existsSync(`${i}x`));

const folderOf = (file: string) => {
  const parts = path.relative(src, file).split(path.sep);
  return parts.length === 1 ? "" : (parts[0] ?? "");
};

describe("every layer imports only the layers below it", () => {
  const files = filesUnder(src);

  it("every top-level folder of src/ has a rank, and docs/architecture.md names it", () => {
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in RANKS))).toEqual([]);
    const doc = readFileSync(path.join(repoRoot, "docs/architecture.md"), "utf8");
    expect(folders.filter((f) => !doc.includes(`src/${f}/`))).toEqual([]);
  });

  it("no import runs back up a layer or across to a layer of the same rank", () => {
    const offenders = files.flatMap((f) =>
      modulesImportedBy(f)
        .filter((i) => folderOf(i) !== folderOf(f))
        .filter((i) => (RANKS[folderOf(i)] ?? 99) >= (RANKS[folderOf(f)] ?? -1))
        .map((i) => `${path.relative(src, f)} → ${path.relative(src, i)}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the engine imports only the Runtime contract, never the concrete registry or a runtime", () => {
    const runtimesDir = path.join(src, "runtimes");
    const allowed = new Set([path.join(runtimesDir, "runtime.ts"), path.join(runtimesDir, "registry.ts")]);
    const offenders = files
      .filter((f) => ["engine", "workflows", "api", "session", "boundary", "workspace"].includes(folderOf(f)))
      .flatMap((f) =>
        modulesImportedBy(f)
          .filter((i) => i.startsWith(`${runtimesDir}${path.sep}`) && !allowed.has(i))
          .map((i) => `${path.relative(src, f)} → ${path.relative(src, i)}`),
      );
    expect(offenders).toEqual([]);
  });

  it("a runtime imports no other runtime's folder: shared helpers live in runtimes/send-loop/ or util/", () => {
    const runtimesDir = path.join(src, "runtimes");
    const runtimeOf = (file: string) => {
      const parts = path.relative(runtimesDir, file).split(path.sep);
      return parts.length > 1 ? (parts[0] ?? "") : "";
    };
    const offenders = files
      .filter((f) => folderOf(f) === "runtimes" && runtimeOf(f) !== "")
      .flatMap((f) =>
        modulesImportedBy(f)
          .filter((i) => folderOf(i) === "runtimes" && runtimeOf(i) !== "" && runtimeOf(i) !== runtimeOf(f))
          .filter((i) => runtimeOf(i) !== "send-loop")
          .map((i) => `${path.relative(src, f)} → ${path.relative(src, i)}`),
      );
    expect(offenders).toEqual([]);
  });

  it("no module imports itself through a loop", () => {
    const graph = new Map(files.map((f) => [f, modulesImportedBy(f).map((i) => i.replace(/\.js$/, ".ts"))]));
    const loops: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        loops.push(
          trail
            .slice(trail.indexOf(file))
            .map((f) => path.relative(src, f))
            .join(" → "),
        );
        return;
      }
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...trail, next]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, [file]);
    expect(loops).toEqual([]);
  });
});
