/**
 * The files `sssf init` writes, by path relative to the repo root: the operator commits them once, and
 * until then a run does not count them as the operator's uncommitted work.
 */

/** The config's JSON Schema, beside the config: exists wherever the config does, whatever installed sssf. */
export const SCHEMA_PATH = "adws/adw_sssf_config/sssf.config.schema.json";

/** The `.gitignore` lines `sssf init` wants: run data ignored, the prompts kept under version control. */
export const GITIGNORE_LINES: readonly string[] = [
  "# sssf: run data (sessions, trace database, worktrees); prompts stay tracked",
  "adws/adw_data/*",
  "!adws/adw_data/prompt_engineering/",
];
