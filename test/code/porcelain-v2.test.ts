/** The one parser of `git status --porcelain=v2 --branch -z`, on records as git writes them. */
import { describe, expect, it } from "vitest";
import { parsePorcelainV2 } from "../../src/code/porcelain-v2.js";

const OID = "a".repeat(40);
const ZERO = "0".repeat(40);

describe("parsePorcelainV2", () => {
  it("reads HEAD, the branch, changed, renamed, unmerged and untracked paths", () => {
    const records = [
      `# branch.oid ${OID}`,
      "# branch.head sssf/prompt/abc",
      `1 .M N... 100644 100644 100644 ${OID} ${OID} src/a file.ts`,
      `1 A. N... 000000 100644 100644 ${ZERO} ${OID} new.txt`,
      `2 R. N... 100644 100644 100644 ${OID} ${OID} R100 moved.txt`,
      "old name.txt",
      `u UU N... 100644 100644 100644 100644 ${OID} ${OID} ${OID} both.txt`,
      "? nested/",
      "? untracked.txt",
      "",
    ];
    expect(parsePorcelainV2(records.join("\0"))).toEqual({
      head: OID,
      branch: "sssf/prompt/abc",
      entries: [
        { path: "src/a file.ts", headOid: OID },
        { path: "new.txt", headOid: null },
        { path: "moved.txt", headOid: OID },
        { path: "both.txt", headOid: OID },
        { path: "nested", headOid: null },
        { path: "untracked.txt", headOid: null },
      ],
    });
  });

  it("reads a branch with an upstream, ahead/behind counted or not (--no-ahead-behind)", () => {
    for (const ab of ["# branch.ab +2 -3", "# branch.ab +? -?"]) {
      const records = [
        `# branch.oid ${OID}`,
        "# branch.head main",
        "# branch.upstream origin/main",
        ab,
        "? x.txt",
        "",
      ];
      expect(parsePorcelainV2(records.join("\0"))).toEqual({
        head: OID,
        branch: "main",
        entries: [{ path: "x.txt", headOid: null }],
      });
    }
  });

  it("a repository without commits and a detached HEAD have no head or branch", () => {
    expect(parsePorcelainV2("# branch.oid (initial)\0# branch.head (detached)\0")).toEqual({
      head: null,
      branch: null,
      entries: [],
    });
  });
});
