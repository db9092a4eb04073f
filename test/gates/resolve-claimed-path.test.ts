import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveClaimedPath } from "../../src/gates/resolve-claimed-path.js";
import { makeTempDir, removeTempDir, writeFiles } from "../code/fixtures.js";

let dir = "";
let outside = "";
afterEach(() => {
  removeTempDir(dir);
  removeTempDir(outside);
});

function setup(): string {
  dir = makeTempDir("resolve");
  outside = makeTempDir("outside");
  const root = path.join(dir, "repo");
  writeFiles(root, { "src/a.ts": "a", "docs/b.md": "b" });
  writeFiles(outside, { "secret.txt": "s" });
  return root;
}

describe("resolveClaimedPath", () => {
  it("resolves relative claims and normalizes them to POSIX", () => {
    const root = setup();
    expect(resolveClaimedPath(root, "src/a.ts")).toEqual({
      ok: true,
      absolute: path.join(root, "src", "a.ts"),
      relative: "src/a.ts",
    });
    expect(resolveClaimedPath(root, "./docs/../src/./a.ts")).toMatchObject({
      ok: true,
      relative: "src/a.ts",
    });
    expect(resolveClaimedPath(root, "not/yet/there.txt")).toMatchObject({
      ok: true,
      relative: "not/yet/there.txt",
    });
    expect(resolveClaimedPath(root, ".")).toMatchObject({ ok: true, relative: "." });
  });

  it("accepts absolute claims inside the root, also spelled through a symlinked root", () => {
    const root = setup();
    expect(resolveClaimedPath(root, path.join(root, "docs/b.md"))).toMatchObject({
      ok: true,
      relative: "docs/b.md",
    });
    const alias = path.join(dir, "alias");
    fs.symlinkSync(root, alias);
    expect(resolveClaimedPath(alias, path.join(root, "src/a.ts"))).toEqual({
      ok: true,
      absolute: path.join(alias, "src", "a.ts"),
      relative: "src/a.ts",
    });
    expect(resolveClaimedPath(alias, "src/a.ts")).toMatchObject({ ok: true, relative: "src/a.ts" });
  });

  it("refuses claims that escape the root", () => {
    const root = setup();
    const escapes = { ok: false, reason: "escapes the repo root" };
    expect(resolveClaimedPath(root, "../x")).toEqual(escapes);
    expect(resolveClaimedPath(root, "src/../../repo-sibling")).toEqual(escapes);
    expect(resolveClaimedPath(root, "/etc/passwd")).toEqual(escapes);
    expect(resolveClaimedPath(root, path.join(outside, "secret.txt"))).toEqual(escapes);
  });

  it("refuses paths through symlinks whose real location leaves the root", () => {
    const root = setup();
    fs.symlinkSync(outside, path.join(root, "out-dir"));
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "out-file"));
    fs.symlinkSync(path.join(outside, "missing", "x"), path.join(root, "dangling"));
    fs.symlinkSync(path.join(root, "src"), path.join(root, "src-link"));
    const escapes = { ok: false, reason: "escapes the repo root" };
    expect(resolveClaimedPath(root, "out-dir/secret.txt")).toEqual(escapes);
    expect(resolveClaimedPath(root, "out-dir/new/file.txt")).toEqual(escapes);
    expect(resolveClaimedPath(root, "out-file")).toEqual(escapes);
    expect(resolveClaimedPath(root, "dangling")).toEqual(escapes);
    expect(resolveClaimedPath(root, "src-link/a.ts")).toMatchObject({ ok: true, relative: "src-link/a.ts" });
  });

  it("refuses empty claims", () => {
    const root = setup();
    expect(resolveClaimedPath(root, "")).toEqual({ ok: false, reason: "empty path" });
    expect(resolveClaimedPath(root, "  ")).toEqual({ ok: false, reason: "empty path" });
  });
});
