import { existsSync } from "node:fs";
import type { AgentConfig } from "../../config/config-types.js";
import type { RuntimeCheck } from "../../runtimes/runtime.js";
import { effectiveSandbox, SANDBOX_MODE_ENV, sandboxModeFromEnv } from "../../sandbox/sandbox-settings.js";
import { sandboxSupport } from "../../sandbox/sandbox-support.js";

/** Whether this agent's sends will be boxed, with what, and why not (`sssf doctor`). */
export function sandboxChecks(agent: AgentConfig): RuntimeCheck[] {
  const settings = effectiveSandbox(agent.sandbox);
  const from = sandboxModeFromEnv() === null ? "sandbox.mode" : SANDBOX_MODE_ENV;
  if (settings.mode === "off")
    return [
      {
        ok: true,
        warning: true,
        item: "sandbox",
        detail: `not boxed (${from}: off): the write boundary alone checks what it writes`,
      },
    ];
  const required = settings.mode === "required";
  const support = sandboxSupport();
  if (!support.available)
    return [
      {
        ok: !required,
        warning: !required,
        item: "sandbox",
        detail: `not boxed: ${support.reason}; ${support.fix}`,
      },
    ];
  const network = settings.network === "open" ? "network open" : "no network";
  const checks: RuntimeCheck[] = [
    {
      ok: true,
      item: "sandbox",
      detail: `boxed by ${support.version} (${from}: ${settings.mode}): writes only its working tree, context_handoff/, its runtime's folders${settings.allowWrite.length > 0 ? " and allow_write" : ""}; git dirs read-only; credential files hidden; ${network}`,
    },
  ];
  for (const missing of settings.allowWrite.filter((entry) => !existsSync(entry)))
    checks.push({
      ok: !required,
      warning: !required,
      item: "sandbox.allow_write",
      detail: `${missing} does not exist: ${required ? "the run is refused" : "left out of the box"}; create it or remove it`,
    });
  return checks;
}
