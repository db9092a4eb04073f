import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { parseIndexFlags } from "../../src/boundary/trees/git-index-flags.js";
import { git } from "./boundary-fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repo of `files` committed, with `flags` set through git, its index written in `version`. */
function indexWith(files: string[], flags: Map<string, string>, version: number, format = "sha1"): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-index-"));
  dirs.push(dir);
  git(dir, "init", "-q", `--object-format=${format}`);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), `${file}\n`);
  }
  git(dir, "add", "-A");
  for (const [file, flag] of flags) {
    if (flag.includes("S")) git(dir, "update-index", "--skip-worktree", "--", file);
    if (flag.includes("A")) git(dir, "update-index", "--assume-unchanged", "--", file);
  }
  git(dir, "update-index", "--index-version", String(version));
  return readFileSync(path.join(dir, ".git/index"));
}

describe("the index's hiding flags, read from the file", () => {
  it("matches what git set, in index versions 2, 3 and 4 and both object formats (fast-check, fixed seed)", () => {
    const name = fc.stringMatching(/^[a-z]{1,12}$/);
    const files = fc.uniqueArray(
      fc.tuple(fc.array(name, { minLength: 1, maxLength: 3 }), fc.constantFrom("", "S", "A", "SA")),
      {
        minLength: 1,
        maxLength: 12,
        selector: ([parts]) => parts.join("/"),
      },
    );
    fc.assert(
      fc.property(
        files,
        fc.constantFrom(2, 3, 4),
        fc.constantFrom("sha1", "sha256"),
        (entries, version, format) => {
          // A name may not be both a file and a folder.
          const paths = entries.map(([parts]) => parts.join("/"));
          fc.pre(!paths.some((a) => paths.some((b) => b.startsWith(`${a}/`))));
          const wanted = new Map(
            entries.filter(([, flag]) => flag !== "").map(([parts, flag]) => [parts.join("/"), flag]),
          );
          const index = indexWith(paths, wanted, version, format);
          expect(parseIndexFlags(index, format as "sha1" | "sha256")).toEqual(wanted);
        },
      ),
      { seed: 20261206, numRuns: 12 },
    );
  }, 120_000);

  it("reads nothing from what is not an index", () => {
    expect(parseIndexFlags(Buffer.from("not an index"), "sha1")).toEqual(new Map());
    expect(parseIndexFlags(Buffer.alloc(0), "sha1")).toEqual(new Map());
  });
});
