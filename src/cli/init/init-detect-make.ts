import { readFileSync } from "node:fs";
import path from "node:path";
import type { DetectedSuite } from "./detected-suite.js";

const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];

/**
 * The explicit targets a Makefile defines: names before a `:` at the start of a line, skipping recipe
 * lines, variable assignments (`X := y`), special targets (`.PHONY`) and pattern rules (`%.o`).
 * Never throws.
 */
export function makefileTargets(text: string): Set<string> {
  const targets = new Set<string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("\t") || line.trimStart().startsWith("#")) continue;
    const match = /^([^:=#\t]+?)\s*::?(?!=)/.exec(line);
    if (!match?.[1]) continue;
    for (const name of match[1].trim().split(/\s+/)) {
      if (name && !name.startsWith(".") && !name.includes("%") && !name.includes("$")) targets.add(name);
    }
  }
  return targets;
}

/**
 * Suites from the repo's Makefile targets: `test` (or GNU's `check` when there is no `test`), `lint`,
 * `typecheck` (or `type-check`), `build`, each run as `make <target>`. [] without a Makefile. Never throws.
 */
export function makefileSuites(repoRoot: string): DetectedSuite[] {
  for (const file of MAKEFILES) {
    let text: string;
    try {
      text = readFileSync(path.join(repoRoot, file), "utf8");
    } catch {
      continue;
    }
    const targets = makefileTargets(text);
    const pick = (...names: string[]) => names.find((name) => targets.has(name));
    const suites: DetectedSuite[] = [];
    for (const [suite, target] of [
      ["test", pick("test", "check")],
      ["lint", pick("lint")],
      ["typecheck", pick("typecheck", "type-check")],
      ["build", pick("build")],
    ] as const) {
      if (target) suites.push({ name: suite, command: ["make", target], source: file });
    }
    return suites;
  }
  return [];
}
