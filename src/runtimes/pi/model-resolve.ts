/**
 * Turns an agent's `model` into the exact `provider/id` sssf passes to `pi --model`. Stricter than
 * pi's own `--model` matching on purpose: no fuzzy substring picks (they change meaning when the
 * catalog grows) and no "unknown id, use it anyway" fallback (a typo would only fail at the provider).
 */

import { THINKING_LEVELS } from "../runtime.js";
import type { PiModelCatalog, PiModelRef } from "./models.js";

/** `model` resolved: `verified` is false when pi's built-in catalog was not found and it is passed as given. */
export type PiModelResolution = { ok: true; model: string; verified: boolean } | { ok: false; error: string };

const canonical = (ref: PiModelRef): string => `${ref.provider}/${ref.id}`;

function suggestions(wanted: string, catalog: PiModelCatalog): string[] {
  const tail = wanted.slice(wanted.lastIndexOf("/") + 1);
  if (tail.length < 3) return [];
  return catalog.models
    .filter((ref) => ref.id.toLowerCase().includes(tail))
    .map(canonical)
    .sort((a, b) => a.length - b.length)
    .slice(0, 5);
}

function unknownModel(requested: string, wanted: string, catalog: PiModelCatalog): string {
  const sources = [
    catalog.builtinFile === null ? null : `pi's built-in catalog (${catalog.builtinFile})`,
    `${catalog.modelsFile}`,
  ].filter((source) => source !== null);
  const suffix = wanted.slice(wanted.lastIndexOf(":") + 1);
  const thinkingHint = (THINKING_LEVELS as readonly string[]).includes(suffix)
    ? ` Set \`thinking: ${suffix}\` on the agent instead of a ":${suffix}" suffix.`
    : "";
  const near = suggestions(wanted, catalog);
  const nearHint = near.length > 0 ? ` Similar: ${near.join(", ")}.` : "";
  return (
    `pi has no model "${requested}": it is not in ${sources.join(" nor in ")}. ` +
    `Name a model as provider/id (\`pi --list-models\` lists those with credentials), or add it to models.json.` +
    thinkingHint +
    nearHint
  );
}

/**
 * Resolves `requested` (non-empty) against `catalog`: an exact `provider/id`, or a bare id that only one
 * provider has, both case-insensitive like pi. Never throws.
 */
export function resolvePiModel(requested: string, catalog: PiModelCatalog): PiModelResolution {
  const wanted = requested.trim().toLowerCase();
  const exact = catalog.models.filter((ref) => canonical(ref).toLowerCase() === wanted);
  const byId = exact.length > 0 ? exact : catalog.models.filter((ref) => ref.id.toLowerCase() === wanted);
  const first = byId[0];
  if (byId.length === 1 && first !== undefined) return { ok: true, model: canonical(first), verified: true };
  if (byId.length > 1) {
    const choices = byId.map(canonical).join(", ");
    return {
      ok: false,
      error: `pi model "${requested}" is ambiguous: ${choices}; name one as provider/id`,
    };
  }
  // Without the built-in table only models.json could be checked: leave the rest to pi.
  if (catalog.builtinFile === null) return { ok: true, model: requested.trim(), verified: false };
  return { ok: false, error: unknownModel(requested, wanted, catalog) };
}
