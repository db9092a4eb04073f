import type { Command } from "commander";

/**
 * One `sssf` command as `program.ts` lists it: `register` adds its name, arguments, options and help to
 * the program, and its action imports the command's module only when the command runs, so
 * `sssf --help` loads none of them.
 */
export interface CommandSpec {
  /** The top-level commands `register` adds (a test holds them equal). */
  names: readonly string[];
  /** Its action reads the program's other commands (a completion script lists them): all are registered. */
  listsOthers?: true;
  register(program: Command): void;
}
