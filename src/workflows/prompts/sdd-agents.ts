/**
 * The default agents of the `sdd` workflow, one per phase (explore, propose, spec, design, tasks, apply,
 * verify, archive), each answering with the Markdown result contract. `sssf init --sdd` writes them.
 */
import { SDD_AGENTS } from "../sdd.js";
import type { DefaultAgentSpec, SddAgentName } from "./agent-spec.js";
import { sddApplyAgent } from "./sdd-apply.js";
import { sddArchiveAgent } from "./sdd-archive.js";
import { sddDesignAgent } from "./sdd-design.js";
import { sddExploreAgent } from "./sdd-explore.js";
import { sddProposeAgent } from "./sdd-propose.js";
import { sddSpecAgent } from "./sdd-spec.js";
import { sddTasksAgent } from "./sdd-tasks.js";
import { sddVerifyAgent } from "./sdd-verify.js";

/** The sdd specs by agent name. */
export const SDD_AGENT_SPECS: Readonly<Record<SddAgentName, DefaultAgentSpec>> = {
  "sdd-explore": sddExploreAgent,
  "sdd-propose": sddProposeAgent,
  "sdd-spec": sddSpecAgent,
  "sdd-design": sddDesignAgent,
  "sdd-tasks": sddTasksAgent,
  "sdd-apply": sddApplyAgent,
  "sdd-verify": sddVerifyAgent,
  "sdd-archive": sddArchiveAgent,
};

/** The sdd roster in the workflow's phase order (`SDD_AGENTS`). Never throws. */
export function sddAgents(): DefaultAgentSpec[] {
  return SDD_AGENTS.map((name) => SDD_AGENT_SPECS[name]);
}

/** True for the names of the sdd workflow's agents. */
export function isSddAgentName(name: string): name is SddAgentName {
  return (SDD_AGENTS as readonly string[]).includes(name);
}
