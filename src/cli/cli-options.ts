/** Options several commands share, each a fresh `Option` per command (commander owns what it is given). */
import { Option } from "commander";

/** `--config <path>`: the roster file. */
export const configOption = (): Option =>
  new Option("--config <path>", "config file (default adws/adw_sssf_config/sssf.config.yaml)");

/** `--cwd <dir>`: the repo root. */
export const cwdOption = (): Option =>
  new Option("--cwd <dir>", "repo root to run in (default: current directory)");

/** `--db <path>`: the trace database. */
export const dbOption = (): Option =>
  new Option("--db <path>", "trace database (default: observability.db from the config)");
