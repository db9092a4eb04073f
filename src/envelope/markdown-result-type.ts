import { z } from "zod";
import { lazyOutputType } from "./output-type.js";
import { EnvelopeBase } from "./schemas.js";

/** Risk severities of the Markdown result contract, most severe first. */
export const RISK_SEVERITIES = ["CRITICAL", "WARNING", "SUGGESTION"] as const;
export type RiskSeverity = (typeof RISK_SEVERITIES)[number];

export const Risk = z.object({
  severity: z.enum(RISK_SEVERITIES),
  text: z.string().min(1),
});
export type Risk = z.output<typeof Risk>;

/**
 * The Markdown result contract (third seed) as a typed envelope. It maps onto the base envelope —
 * `success` and `warning` are `status: "success"`, `failure` is `"fail"`; `summary` and `artifacts` as
 * written; `notes_for_next_agent` is the Next Recommended text — and keeps the contract's own fields.
 */
export const MarkdownResult = lazyOutputType(
  "MarkdownResult",
  () =>
    EnvelopeBase.extend({
      /** The report's heading without "##", e.g. "Proposal Created". */
      phase: z.string().min(1),
      /** `**Change**`, "" when omitted (e.g. an init report). */
      change: z.string().default(""),
      /** The contract's own status word. */
      result_status: z.enum(["success", "warning", "failure"]),
      /** True when the agent reported `warning`: it succeeded with concerns worth surfacing. */
      warning: z.boolean().default(false),
      next_recommended: z.string().min(1),
      risks: z.array(Risk).default([]),
    }),
  {
    status: "success",
    summary: "Proposal defines theme switching with persistence; 3 deliverables.",
    artifacts: ["openspec/changes/add-dark-mode/proposal.md"],
    notes_for_next_agent: "Ready for specs (sdd-spec) and design (sdd-design), in parallel.",
    phase: "Proposal Created",
    change: "add-dark-mode",
    result_status: "success",
    warning: false,
    next_recommended: "Ready for specs (sdd-spec) and design (sdd-design), in parallel.",
    risks: [],
  },
);
