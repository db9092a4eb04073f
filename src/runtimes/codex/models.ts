/**
 * Model resolution for codex: is the model known, what reasoning effort to ask for, and does codex
 * offer it the apply_patch tool. All from codex's own catalog and config, never from a model request.
 */

import type { ThinkingLevel } from "../runtime.js";
import { type CodexCatalog, type CodexModelEntry, catalogEntry } from "./catalog.js";
import { type CodexConfig, usesCustomEndpoint } from "./config.js";

/** codex's reasoning efforts, weakest first (`max` and `ultra` exist on newer catalog models). */
const EFFORT_ORDER = ["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"];

/** sssf thinking level → codex `model_reasoning_effort`. */
export const CODEX_EFFORTS: Record<ThinkingLevel, string> = {
  off: "none",
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
};

/** What sssf passes to codex for one send's model. */
export interface CodexModelChoice {
  /** The catalog entry of the model codex will run (null: generic fallback metadata, or unknown default). */
  entry: CodexModelEntry | null;
  /** `model_reasoning_effort`, or null to leave codex's default. */
  effort: string | null;
  /** Whether codex offers apply_patch to this model; "unknown" for codex's own default model or without a catalog. */
  applyPatch: boolean | "unknown";
  /** Adjustments worth a log line (an effort the model does not support). */
  notes: string[];
}

/** The supported effort closest to `wanted` (ties go to the weaker one). */
function clampEffort(wanted: string, supported: string[]): string {
  const rank = (effort: string) => EFFORT_ORDER.indexOf(effort);
  let best = supported[0] ?? wanted;
  for (const effort of supported) {
    const distance = Math.abs(rank(effort) - rank(wanted));
    const bestDistance = Math.abs(rank(best) - rank(wanted));
    if (distance < bestDistance || (distance === bestDistance && rank(effort) < rank(best))) best = effort;
  }
  return best;
}

/** The error text for a model codex's catalog does not list while requests go to OpenAI. */
export function unknownModelMessage(model: string, catalog: CodexCatalog, config: CodexConfig): string {
  const known = catalog.models.map((entry) => entry.slug).join(", ");
  return (
    `codex does not know model "${model}": model_provider "${config.modelProvider}" is OpenAI's API and ` +
    `the model is not in codex's catalog (${catalog.sources.join("; ")}). Known models: ${known}. ` +
    `To use another endpoint's models, select a custom model_provider in ${config.file}.`
  );
}

/**
 * Resolves `model` (`""` = codex's default from config.toml or its own). A model outside the
 * catalog is unknown only when requests go to OpenAI's API; a custom endpoint may serve any name
 * (codex then warns about fallback metadata, and a rejection by the endpoint is reported from the
 * stream). Never throws.
 */
export function resolveCodexModel(
  model: string,
  thinking: ThinkingLevel,
  catalog: CodexCatalog | null,
  config: CodexConfig,
): { ok: true; choice: CodexModelChoice } | { ok: false; message: string } {
  const effective = model === "" ? config.model : model;
  const entry = catalogEntry(catalog, effective);
  if (model !== "" && entry === null && catalog !== null && !usesCustomEndpoint(config)) {
    return { ok: false, message: unknownModelMessage(model, catalog, config) };
  }
  const notes: string[] = [];
  const wanted = CODEX_EFFORTS[thinking];
  let effort: string | null = wanted;
  const supported = (entry?.supported_reasoning_levels ?? []).map((level) => level.effort);
  if (supported.length > 0 && !supported.includes(wanted)) {
    effort = clampEffort(wanted, supported);
    notes.push(
      `codex model ${entry?.slug} does not support reasoning effort "${wanted}" (thinking: ${thinking}); using "${effort}" (supported: ${supported.join(", ")})`,
    );
  } else if (entry === null && thinking === "off") {
    // Without catalog metadata codex sends no effort at all; "none" could be rejected by a non-reasoning model.
    effort = null;
  }
  const applyPatch: boolean | "unknown" =
    entry !== null
      ? Boolean(entry.apply_patch_tool_type)
      : catalog === null || effective === undefined
        ? "unknown"
        : false;
  return { ok: true, choice: { entry, effort, applyPatch, notes } };
}
