/**
 * Options several commands share, each a fresh `Option` per command (commander owns what it is given),
 * and the flags of `sssf run` both of its engines read.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Option } from "commander";
import { UsageError } from "../errors/usage-error.js";

/** `--config <path>`: the roster file. */
export const configOption = (): Option =>
  new Option("--config <path>", "config file (default adws/adw_sssf_config/sssf.config.yaml)");

/** `--cwd <dir>`: the repo root. */
export const cwdOption = (): Option =>
  new Option("--cwd <dir>", "repo root to run in (default: current directory)");

/** `--db <path>`: the trace database. */
export const dbOption = (): Option =>
  new Option("--db <path>", "trace database (default: observability.db from the config)");

/** The flags of `sssf run`, as commander hands them over. */
export interface RunCommandOptions {
  agent?: string;
  adwId?: string;
  config?: string;
  cwd?: string;
  /** `--in-place`: work in the checkout instead of a worktree of its own. */
  inPlace?: boolean;
  /** `--base REF`: where the run's branch starts (default HEAD). */
  base?: string;
  /** `--merge`: fast-forward the base branch once the run is accepted. */
  merge?: boolean;
  carryDirty?: boolean;
  /** `--yes`: approve every question of an engineer phase instead of waiting for `sssf approve`. */
  yes?: boolean;
  /** `--fake-script FILE`: run against a fake model server playing FILE, offline (docs/fake-model.md). */
  fakeScript?: string;
  /** `--json`: one JSON summary (or error) on stdout at the end; progress on stderr (docs/json-output.md). */
  json?: boolean;
  /** `--engine`: `local` here; `restate` goes to the cluster command (docs/cluster.md). */
  engine?: string;
  /** `--best-of N`: attempts of the workflow's main building phase (docs/reliability.md). */
  bestOf?: string;
  /** `--ingress`, `--detach`: only with `--engine restate`. */
  ingress?: string;
  detach?: boolean;
}

/** A prompt argument that names an existing file is read from it. */
export function readPromptArgument(value: string, cwd: string): string {
  const candidate = path.resolve(cwd, value);
  if (value.length < 4096 && existsSync(candidate) && statSync(candidate).isFile())
    return readFileSync(candidate, "utf8");
  return value;
}

/** `--best-of N`: a whole number (its range is checked against the config with the run's other checks). */
export function bestOfFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()))
    throw new UsageError(`--best-of: expected a whole number of attempts, got "${value}"`, "--best-of");
  return Number(value.trim());
}
