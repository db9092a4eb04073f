import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sssfInvocation } from "../../src/demo/demo-hints.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "sssf-demo-hints-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** An installed package: `<prefix>/lib/node_modules/sssf/dist/cli/main.js`, and its bin link. */
function install(prefix: string): { main: string; bin: string } {
  const main = path.join(prefix, "lib/node_modules/sssf/dist/cli/main.js");
  mkdirSync(path.dirname(main), { recursive: true });
  writeFileSync(main, "#!/usr/bin/env node\n");
  chmodSync(main, 0o755);
  const bin = path.join(prefix, "bin/sssf");
  mkdirSync(path.dirname(bin), { recursive: true });
  symlinkSync(main, bin);
  return { main, bin };
}

describe("the demo's hint lines", () => {
  it("say `sssf` when the sssf on PATH is the installed bin that runs (not node <prefix>/bin/sssf)", () => {
    const { bin } = install(path.join(root, "prefix"));
    const env = { PATH: `${path.dirname(bin)}:/usr/bin:/bin` };
    expect(sssfInvocation({ script: bin, cwd: root, env })).toBe("sssf");
    // Node may hand the script over resolved: the package's main.js, still the bin on PATH.
    expect(
      sssfInvocation({
        script: path.join(root, "prefix/lib/node_modules/sssf/dist/cli/main.js"),
        cwd: root,
        env,
      }),
    ).toBe("sssf");
  });

  it("say `npx sssf` for an installed package that is not on PATH", () => {
    const { main } = install(path.join(root, "project/node_modules/.prefix"));
    expect(
      sssfInvocation({ script: main, cwd: path.join(root, "project"), env: { PATH: "/usr/bin:/bin" } }),
    ).toBe("npx sssf");
  });

  it("say `npx sssf` when another sssf is on PATH", () => {
    const installed = install(path.join(root, "a"));
    const other = install(path.join(root, "b"));
    const env = { PATH: `${path.dirname(other.bin)}:/usr/bin` };
    expect(sssfInvocation({ script: installed.bin, cwd: root, env })).toBe("npx sssf");
  });

  it("say `node <script>` from a clone of sssf itself", () => {
    const clone = path.join(root, "clone");
    mkdirSync(path.join(clone, "dist/cli"), { recursive: true });
    writeFileSync(path.join(clone, "dist/cli/main.js"), "");
    const script = path.join(clone, "dist/cli/main.js");
    expect(sssfInvocation({ script, cwd: clone, env: { PATH: "/usr/bin:/bin" } })).toBe(
      "node dist/cli/main.js",
    );
    const elsewhere = path.join(root, "elsewhere");
    mkdirSync(elsewhere);
    expect(sssfInvocation({ script, cwd: elsewhere, env: { PATH: "/usr/bin:/bin" } })).toBe(`node ${script}`);
  });
});
