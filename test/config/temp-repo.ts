import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_CONFIG_PATH } from "../../src/config/load-config.js";

/** A throwaway repo root under the OS temp dir, holding real files. */
export interface TempRepo {
  root: string;
  /** Writes `text` at the repo-relative `file`, creating folders; returns the absolute path. */
  write(file: string, text: string): string;
  /** Writes the default config file. */
  writeConfig(yaml: string): string;
  remove(): void;
}

/** Creates an empty temp repo; call `remove()` when done. */
export function createTempRepo(): TempRepo {
  const root = mkdtempSync(path.join(os.tmpdir(), "sssf-config-"));
  const write = (file: string, text: string): string => {
    const absolute = path.join(root, file);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
    return absolute;
  };
  return {
    root,
    write,
    writeConfig: (yaml) => write(DEFAULT_CONFIG_PATH, yaml),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Creates the default system.md and user.md of each agent under `dataDir`. */
export function writePrompts(repo: TempRepo, names: readonly string[], dataDir = "adws/adw_data"): void {
  for (const name of names) {
    repo.write(`${dataDir}/prompt_engineering/${name}/system.md`, `You are ${name}.\n`);
    repo.write(`${dataDir}/prompt_engineering/${name}/user.md`, "{{prompt}}\n");
  }
}
