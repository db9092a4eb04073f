/**
 * gitleaks' default rules (gitleaks-rules.json, one rule per line, with gitleaks' MIT licence and the
 * commit they come from), typed for gitleaks-loader.ts. Regenerate the JSON with
 * scripts/import-gitleaks-rules.mjs; never edit it by hand.
 */
import type { GitleaksData } from "./gitleaks-loader.js";
import data from "./gitleaks-rules.json" with { type: "json" };

/** The gitleaks commit these rules come from. */
export const GITLEAKS_COMMIT: string = data.commit;

export const GITLEAKS_RULES: GitleaksData = data as GitleaksData;
