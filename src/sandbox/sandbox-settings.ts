/**
 * The `sandbox:` settings of the config (top level, and per agent over it), in code form. The wire
 * keys are the seed's snake_case (`allow_write`, `deny_read`); paths here are absolute.
 */

/** `auto`: boxed wherever supported; `required`: refuse to start an agent unboxed; `off`: never boxed. */
export type SandboxMode = "auto" | "required" | "off";
export const SANDBOX_MODES: readonly SandboxMode[] = ["auto", "required", "off"];

export interface SandboxSettings {
  mode: SandboxMode;
  /** Absolute paths the agent may write besides its working tree, `context_handoff/` and its runtime's folders. */
  allowWrite: string[];
  /** Absolute paths the agent may not read, besides the built-in credential list. */
  denyRead: string[];
  /** `open` (the default): the host's network; a list of hosts: only those, where the backend can. */
  network: "open" | string[];
}

export const DEFAULT_SANDBOX: Readonly<SandboxSettings> = Object.freeze({
  mode: "auto",
  allowWrite: [],
  denyRead: [],
  network: "open",
});

/** The environment variable that overrides every agent's `sandbox.mode` (for a machine, not a repo). */
export const SANDBOX_MODE_ENV = "SSSF_SANDBOX";

/** `SSSF_SANDBOX` when set to a mode, else null; any other value is a usage error the caller reports. */
export function sandboxModeFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxMode | null | "invalid" {
  const value = env[SANDBOX_MODE_ENV];
  if (value === undefined || value === "") return null;
  return (SANDBOX_MODES as readonly string[]).includes(value) ? (value as SandboxMode) : "invalid";
}

/** An agent's settings with `SSSF_SANDBOX` over its mode (an invalid value leaves them as they are). */
export function effectiveSandbox(
  settings: SandboxSettings,
  env: NodeJS.ProcessEnv = process.env,
): SandboxSettings {
  const mode = sandboxModeFromEnv(env);
  return mode === null || mode === "invalid" ? settings : { ...settings, mode };
}
