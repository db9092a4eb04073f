/**
 * The ways `sssf init` touches the repo: create a file only when nothing is at its path, append the
 * `.gitignore` lines it lacks, and refresh the generated config schema. Nothing the user wrote is ever
 * overwritten.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { configJsonSchema } from "../../config/config-schema.js";
import { GITIGNORE_LINES, SCHEMA_PATH } from "../../config/init-written.js";

export { GITIGNORE_LINES } from "../../config/init-written.js";

/** What happened to one path. */
export interface FileOutcome {
  /** Repo-relative POSIX path. */
  path: string;
  status: "created" | "skipped";
}

/**
 * Creates `relativePath` under `repoRoot` with `content`, parent folders included, unless something
 * already exists there (a file, a folder, a link): then it is left byte-for-byte as it is and the
 * outcome is `skipped`. The existence check and the write are one `open(O_EXCL)`, so a file appearing
 * meanwhile is not clobbered either. Throws only on other I/O errors (a read-only disk).
 */
export function createFileIfAbsent(repoRoot: string, relativePath: string, content: string): FileOutcome {
  const file = path.join(repoRoot, relativePath);
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, content, { flag: "wx" });
    return { path: relativePath, status: "created" };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return { path: relativePath, status: "skipped" };
    throw error;
  }
}

/** What `writeConfigSchema` did. */
export interface SchemaOutcome {
  path: string;
  status: "created" | "updated" | "unchanged";
}

/**
 * Writes this sssf's config JSON Schema to `SCHEMA_PATH`. The one file init rewrites: it is generated
 * (nobody edits it) and must describe the sssf that reads the config, so an upgrade's `sssf init`
 * refreshes it. Throws only on I/O errors.
 */
export function writeConfigSchema(repoRoot: string): SchemaOutcome {
  const file = path.join(repoRoot, SCHEMA_PATH);
  const text = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
  let existing: string | undefined;
  try {
    existing = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (existing === text) return { path: SCHEMA_PATH, status: "unchanged" };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return { path: SCHEMA_PATH, status: existing === undefined ? "created" : "updated" };
}

/** Lines that already ignore the whole data dir: the user chose that, so nothing is added. */
const WHOLE_DATA_DIR = new Set(["adws/adw_data/", "adws/adw_data", "/adws/adw_data/", "/adws/adw_data"]);

/** What `updateGitignore` did. */
export interface GitignoreOutcome {
  status: "created" | "updated" | "unchanged";
  added: string[];
}

/**
 * Appends to `<repoRoot>/.gitignore` each of `GITIGNORE_LINES` it does not already contain (compared
 * trimmed), creating the file when absent. Existing content is never rewritten, only appended to; the
 * comment line is added only along with a rule. Throws only on I/O errors.
 */
export function updateGitignore(repoRoot: string): GitignoreOutcome {
  const file = path.join(repoRoot, ".gitignore");
  let existing: string | undefined;
  try {
    existing = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const present = new Set((existing ?? "").split(/\r?\n/).map((line) => line.trim()));
  const rules = GITIGNORE_LINES.filter((line) => !line.startsWith("#"));
  const missingRules = rules.filter((line) => !present.has(line));
  if (missingRules.length === 0 || [...WHOLE_DATA_DIR].some((line) => present.has(line))) {
    return { status: "unchanged", added: [] };
  }
  const added = GITIGNORE_LINES.filter((line) => !present.has(line));
  if (existing === undefined) {
    writeFileSync(file, `${added.join("\n")}\n`, { flag: "wx" });
    return { status: "created", added };
  }
  const separator = existing === "" || existing.endsWith("\n") ? "" : "\n";
  appendFileSync(file, `${separator}${added.join("\n")}\n`);
  return { status: "updated", added };
}
