/** Reads a fake-model script file (JSON) and validates it, for `sssf fake-model --script` and `sssf run --fake-script`. */
import { readFileSync } from "node:fs";
import { ConfigError } from "../../errors/config-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { parseFakeScript } from "./script-schema.js";
import type { FakeScript } from "./types.js";

/**
 * The script in `file`; `flag` is the option an unreadable file is blamed on (default `--script`).
 *
 * @throws UsageError when the file cannot be read; ConfigError naming the file and each bad field
 * (`steps[1].writeFile.path: required`) when it is not JSON or not a valid script. Both exit 2.
 */
export function loadFakeScript(file: string, flag = "--script"): FakeScript {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`${flag}: cannot read ${file} (${reason})`, flag);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [{ path: "", message: `not valid JSON: ${(error as Error).message}` }]);
  }
  const parsed = parseFakeScript(value);
  if (!parsed.ok) throw new ConfigError(file, parsed.problems);
  return parsed.value;
}
