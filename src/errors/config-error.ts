import { SssfError } from "./sssf-error.js";

/** One problem found in a config file, addressed by its path (`agents[2].writes`). */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** Every problem in a config at once, so the user fixes them in one pass. Exit code 2. */
export class ConfigError extends SssfError {
  readonly file: string;
  readonly problems: ConfigProblem[];

  constructor(file: string, problems: ConfigProblem[]) {
    const lines = problems.map((p) => `  ${p.path ? `${p.path}: ` : ""}${p.message}`);
    super(
      "config_invalid",
      `invalid config ${file} (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines.join("\n")}`,
    );
    this.name = "ConfigError";
    this.file = file;
    this.problems = problems;
  }
}
