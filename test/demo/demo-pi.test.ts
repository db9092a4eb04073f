import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { locateDemoPi } from "../../src/demo/demo-pi.js";
import { SssfError } from "../../src/errors/sssf-error.js";
import { repoRoot } from "../helpers/sandbox.js";

const piPackage = path.join(repoRoot, "node_modules/@mariozechner/pi-coding-agent");
const notInstalled = (): null => null;

let emptyBin: string;
beforeEach(() => {
  emptyBin = mkdtempSync(path.join(tmpdir(), "sssf-demo-bin-"));
});
afterEach(() => rmSync(emptyBin, { recursive: true, force: true }));

describe("locateDemoPi", () => {
  it("runs the pi installed with sssf through this Node", () => {
    const found = locateDemoPi(() => piPackage, {
      PATH: emptyBin,
    });
    expect(found).toEqual({
      command: [process.execPath, path.join(piPackage, "dist/cli.js")],
      location: piPackage,
      version: "0.73.1",
      source: "sssf",
    });
  });

  it("finds the pi installed with sssf by Node's resolution from sssf's own files", () => {
    expect(locateDemoPi(undefined, { PATH: emptyBin })).toMatchObject({
      location: piPackage,
      source: "sssf",
    });
  });

  it("falls back to a pi on PATH, and says so", () => {
    const found = locateDemoPi(notInstalled, { PATH: path.join(repoRoot, "node_modules/.bin") });
    expect(found.command).toEqual(["pi"]);
    expect(found.source).toBe("PATH");
    expect(found.version).toBe("0.73.1");
  });

  it("fails with exit 2 naming the package to install when there is no pi at all", () => {
    let error: unknown;
    try {
      locateDemoPi(notInstalled, { PATH: emptyBin });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SssfError);
    expect((error as SssfError).exitCode).toBe(2);
    expect((error as SssfError).message).toContain("install @mariozechner/pi-coding-agent@0.73.1");
  });
});
