/**
 * Where the cluster's parts listen, as every cluster command finds them: its flag, else an
 * environment variable, else the config's `engine.restate` section; a clear error naming all three
 * otherwise.
 */

import type { SssfConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";

export type ClusterPart = "ingress" | "admin" | "pool";

const ENV: Record<ClusterPart, string> = {
  ingress: "SSSF_RESTATE_INGRESS",
  admin: "SSSF_RESTATE_ADMIN",
  pool: "SSSF_POOL",
};

/** The URL of `part`: `--<part>`, else its environment variable, else `engine.restate.<part>`. */
export function clusterUrl(part: ClusterPart, flag: string | undefined, config: SssfConfig | null): string {
  const value = flag ?? process.env[ENV[part]] ?? config?.engine?.restate[part] ?? null;
  if (value === null || value === "")
    throw new UsageError(
      `--${part}: where is the cluster's ${part}? Pass --${part} <url>, set ${ENV[part]}, or set engine.restate.${part} in the config (docs/cluster.md)`,
      `--${part}`,
    );
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new UsageError(`--${part}: "${value}" is not an http(s) URL`, `--${part}`);
  }
  return value;
}
