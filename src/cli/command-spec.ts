import type { Command } from "commander";

/**
 * One `sssf` command as `main.ts` lists it: `register` adds its name, arguments, options and help to
 * the program, and its action imports the command's module only when the command runs, so
 * `sssf --help` loads none of them.
 */
export interface CommandSpec {
  register(program: Command): void;
}
