#!/usr/bin/env node
/**
 * The `sssf` binary. A plain `sssf --help` is printed from the build's rendering without loading the
 * program at all. Otherwise it loads the program's bundle with a code cache, so a start after the
 * first skips compiling it: Node's own on Node ≥ 22.1 (turned on here, before anything loads), V8's
 * through src/cli/code-cache.ts before that.
 * The build ships this file as CommonJS (scripts/bundle.mjs): Node then starts it without its ES module
 * loader, which only the program needs. From src/ (tsx) it is an ES module importing the program.
 */
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { requireWithCodeCache } from "./code-cache.js";
import { printPrerenderedHelp } from "./prerendered-help.js";

interface Program {
  runCli(argv: readonly string[]): Promise<void>;
}

/** Which code cache a start uses: the runs', the cluster's, or the one of every other command. */
function cacheName(command: string | undefined): string {
  if (command === "run" || command === "resume") return "run";
  if (command === "worker" || command === "pool") return "cluster";
  return "other";
}

/**
 * After the command: when the event loop has nothing left (every write flushed, every child reaped),
 * the process ends at once instead of freeing its heap and modules one by one, Node's teardown after
 * an ordinary exit (about 7 of a short run's 400 ms here). The `exit` listeners registered before
 * this one have run by then; any registered after it (by work that went on after the command) are run
 * here first, in order. `process.exit` inside an `exit` listener only ends the process.
 */
function endWithoutTeardown(): void {
  const last = (code: number): void => {
    const listeners = process.listeners("exit");
    for (const listener of listeners.slice(listeners.indexOf(last) + 1)) listener.call(process, code);
    process.exit(code);
  };
  process.on("exit", last);
}

// CommonJS (the build) has __dirname; an ES module (tsx, from src/) has import.meta.
const built = typeof __dirname === "string";
const here = built ? __dirname : path.dirname(fileURLToPath(import.meta.url));
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
if (!printPrerenderedHelp(process.argv, here)) {
  const loading: Promise<Program> = built
    ? Promise.resolve().then(
        () => requireWithCodeCache(path.join(here, "sssf.js"), cacheName(process.argv[2])) as Program,
      )
    : import("./program.js");
  loading.then(
    (program) => program.runCli(process.argv).then(endWithoutTeardown),
    (error: unknown) => {
      // The program reports its own errors: this is a build that cannot load (a partial or broken install).
      process.stderr.write(
        `sssf: cannot load the program (${(error as Error).message}); reinstall sssf, or run npm run build in a clone\n`,
      );
      process.exitCode = 1;
    },
  );
}
