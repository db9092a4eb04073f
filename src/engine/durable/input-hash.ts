import { createHash } from "node:crypto";
import { redactJsonValue } from "../../util/secrets/redact-json.js";
import { locate, type RunRoots } from "./run-roots.js";

/** JSON with object keys sorted at every depth, so equal values hash equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * sha256 of a step's inputs as the journal stores them: every path under one of the run's `roots`
 * written relative to it (`<worktree>/src/x.ts`), so the hash does not change when the folders move;
 * redacted (what the trace keeps is all a resume can compare with); canonical JSON. Without `roots`,
 * the absolute paths are hashed as they are (the format of journals written before roots were
 * recorded). Never throws for JSON values; `undefined` hashes as `null`.
 */
export function inputHash(inputs: unknown, roots?: RunRoots): string {
  const text = canonicalJson(redactJsonValue(locate(inputs ?? null, roots))) ?? "null";
  return createHash("sha256").update(text).digest("hex");
}
