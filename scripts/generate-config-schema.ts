/**
 * Writes `schema/sssf.config.schema.json` from the config's zod schema, so editors that read
 * `# yaml-language-server: $schema=…` flag unknown keys and wrong types.
 *
 *   npx tsx scripts/generate-config-schema.ts          # (re)write the file
 *   npx tsx scripts/generate-config-schema.ts --check  # exit 1 when the committed file is stale
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { configJsonSchema } from "../src/config/config-schema.js";

const target = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "schema",
  "sssf.config.schema.json",
);
const text = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;

if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(target, "utf8");
  } catch {
    // A missing file is stale too.
  }
  if (committed !== text) {
    process.stderr.write(`${target} is stale; run: npx tsx scripts/generate-config-schema.ts\n`);
    process.exit(1);
  }
  process.stdout.write(`${target} is up to date\n`);
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
