#!/usr/bin/env node
/**
 * The `sssf` binary. It turns on Node's on-disk compile cache (Node ≥ 22.1: later starts skip compiling
 * the bundle) before the program's modules load, which is why the program is imported, not inlined;
 * a plain `sssf --help` is printed from the build's rendering without loading the program at all.
 * The build ships this file as CommonJS (scripts/bundle.mjs): Node then starts it without its ES module
 * loader, which only the program needs.
 */
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { printPrerenderedHelp } from "./prerendered-help.js";

// CommonJS (the build) has __dirname; an ES module (tsx, from src/) has import.meta.
const here = typeof __dirname === "string" ? __dirname : path.dirname(fileURLToPath(import.meta.url));
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
if (!printPrerenderedHelp(process.argv, here)) {
  import("./program.js").catch((error: unknown) => {
    // The program reports its own errors: this is a build that cannot load (a partial or broken install).
    process.stderr.write(
      `sssf: cannot load the program (${(error as Error).message}); reinstall sssf, or run npm run build in a clone\n`,
    );
    process.exitCode = 1;
  });
}
