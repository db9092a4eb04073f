#!/usr/bin/env node
/**
 * The `sssf` binary. On a Node before 22.13 it says so and ends. Otherwise it turns on Node's compile
 * cache (a start after the first skips compiling the bundle) and loads the program.
 * The build ships this file as CommonJS requiring the bundle (scripts/bundle.mjs); from src/ (tsx) it
 * is an ES module importing the program.
 */
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface Program {
  runCli(argv: readonly string[]): Promise<void>;
}

// CommonJS (the build) has __dirname; an ES module (tsx, from src/) has import.meta.
const built = typeof __dirname === "string";
const here = built ? __dirname : path.dirname(fileURLToPath(import.meta.url));
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(
    `sssf: needs Node 22.13 or later; this is Node ${process.version} (${process.execPath})\n`,
  );
  process.exitCode = 1;
} else {
  module.enableCompileCache?.();
  const loading: Promise<Program> = built
    ? Promise.resolve().then(() => require(path.join(here, "sssf.js")) as Program)
    : import("./program.js");
  loading.then(
    (program) => program.runCli(process.argv),
    (error: unknown) => {
      // The program reports its own errors: this is a build that cannot load (a partial or broken install).
      process.stderr.write(
        `sssf: cannot load the program (${(error as Error).message}); reinstall sssf, or run npm run build in a clone\n`,
      );
      process.exitCode = 1;
    },
  );
}
