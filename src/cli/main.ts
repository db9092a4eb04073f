#!/usr/bin/env node
/**
 * The `sssf` binary. It turns on Node's on-disk compile cache (Node ≥ 22.1: later starts skip compiling
 * the bundle) before the program's modules load, which is why the program is imported, not inlined;
 * a plain `sssf --help` is printed from the build's rendering without loading the program at all.
 */
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { printPrerenderedHelp } from "./prerendered-help.js";

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
if (!printPrerenderedHelp(process.argv, path.dirname(fileURLToPath(import.meta.url)))) {
  await import("./program.js");
}
