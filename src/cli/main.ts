#!/usr/bin/env node
/**
 * The `sssf` binary. It turns on Node's on-disk compile cache (Node ≥ 22.1: later starts skip compiling
 * the bundle) before the program's modules load, which is why the program is imported, not inlined.
 */
import module from "node:module";

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import("./program.js");
