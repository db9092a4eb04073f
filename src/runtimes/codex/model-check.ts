/**
 * `checkModel` for codex: the agent's model against the catalog the codex it runs would use (its
 * bundled catalog, read once per binary and cached on disk, overlaid by `models_cache.json`), as a
 * send resolves it. A name outside the catalog is unknown only when requests go to OpenAI's API; a
 * custom endpoint may serve any name.
 */

import type { ModelCheck, ModelCheckRequest } from "../runtime.js";
import { catalogEntry, loadCodexCatalog } from "./catalog.js";
import { type CodexEnv, readCodexConfig } from "./config.js";
import { resolveCodexModel } from "./models.js";
import { codexCommand } from "./prepare.js";

/** Whether codex knows `request.model`. Never throws; never a model request. */
export async function checkCodexModel(request: ModelCheckRequest): Promise<ModelCheck> {
  try {
    const env: CodexEnv = { ...process.env, ...request.env };
    const config = readCodexConfig(env);
    const catalog = await loadCodexCatalog(codexCommand(request.command), request.cwd, env, config);
    const resolved = resolveCodexModel(request.model, "off", catalog, config);
    if (!resolved.ok) return { status: "unknown", error: resolved.message };
    return catalogEntry(catalog, request.model) === null
      ? { status: "unsure", detail: "not in codex's catalog; the custom endpoint decides" }
      : { status: "known" };
  } catch (error) {
    return {
      status: "unsure",
      detail: `codex's model catalog could not be read: ${(error as Error).message}`,
    };
  }
}
