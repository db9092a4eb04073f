import { SssfError } from "./sssf-error.js";

/** Bad command-line use: a missing argument, an unknown workflow or agent, a bad flag value. Exit code 2. */
export class UsageError extends SssfError {
  readonly flag: string | undefined;

  constructor(message: string, flag?: string) {
    super("usage", message);
    this.name = "UsageError";
    this.flag = flag;
  }
}
