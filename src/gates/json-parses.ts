import fs from "node:fs";
import { claimedList } from "./claimed-list.js";
import { defineGate, type Gate } from "./gate.js";
import { resolveArtifactPath } from "./resolve-claimed-path.js";

/** Any envelope with an `artifacts` list. */
export interface JsonArtifactsClaim {
  artifacts?: readonly string[];
}

/**
 * Each claimed artifact ending in `.json` (any case) is readable and parses as JSON. A passing check
 * notes what it found ("parses: object with 3 keys, 120 bytes"); a failing one notes the parser's
 * message. No `.json` artifact is one passing check. Never throws.
 */
export const jsonParses: Gate<JsonArtifactsClaim> = defineGate<JsonArtifactsClaim>(
  "jsonParses",
  (envelope, context, report) => {
    const jsonArtifacts = claimedList(envelope.artifacts).filter((a) => a.toLowerCase().endsWith(".json"));
    if (jsonArtifacts.length === 0) {
      report.check("artifacts", true, "no .json artifacts claimed");
      return;
    }
    for (const claimed of jsonArtifacts) {
      const resolved = resolveArtifactPath(context.repoRoot, context.contextHandoffDir, claimed);
      if (!resolved.ok) {
        report.check(claimed, false, resolved.reason);
        continue;
      }
      let text: string;
      try {
        text = fs.readFileSync(resolved.absolute, "utf8");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        report.check(
          claimed,
          false,
          code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? error})`,
        );
        continue;
      }
      try {
        const value: unknown = JSON.parse(text);
        report.check(claimed, true, `parses: ${describe(value)}, ${Buffer.byteLength(text)} bytes`);
      } catch (error) {
        report.check(claimed, false, `invalid JSON: ${(error as Error).message}`);
      }
    }
  },
);

function describe(value: unknown): string {
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "object") return `object with ${Object.keys(value).length} keys`;
  return typeof value;
}
