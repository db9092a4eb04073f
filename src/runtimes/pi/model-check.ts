/**
 * `checkModel` for pi: the agent's model resolved against the catalog pi would read (its built-in
 * table next to the binary the agent's command runs, plus `models.json` in the agent's pi dir), the
 * same resolution a send makes before starting pi. Spawns nothing.
 */

import type { ModelCheck, ModelCheckRequest } from "../runtime.js";
import { PI_ENV } from "./args.js";
import { locatePi, piCommand } from "./install.js";
import { resolvePiModel } from "./model-resolve.js";
import { loadPiModelCatalog } from "./models.js";

/** Whether pi knows `request.model`. Never throws. */
export async function checkPiModel(request: ModelCheckRequest): Promise<ModelCheck> {
  try {
    const command = piCommand(request.command);
    const env = { ...process.env, ...PI_ENV, ...request.env };
    const install = locatePi(command, { cwd: request.cwd, env });
    // Without the binary there is no catalog to read; the send (and sssf doctor) say it is missing.
    if (install === null) return { status: "unsure", detail: `${command[0]} not found` };
    const resolved = resolvePiModel(request.model, await loadPiModelCatalog(install, env));
    if (!resolved.ok) return { status: "unknown", error: resolved.error };
    return resolved.verified
      ? { status: "known" }
      : { status: "unsure", detail: `pi's built-in model catalog was not found next to ${install.binary}` };
  } catch (error) {
    return { status: "unsure", detail: (error as Error).message };
  }
}
