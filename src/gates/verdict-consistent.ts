import { claimedList } from "./claimed-list.js";
import { defineGate, type Gate } from "./gate.js";

/** Any envelope shaped like ReviewOutput. */
export interface VerdictClaim {
  approved?: boolean;
  blocking?: readonly string[];
  findings?: readonly { requirement: string; met: boolean }[];
}

/**
 * A review's verdict agrees with itself: `approved` holds exactly when `blocking` is empty, and an
 * approval leaves no finding with `met: false` (one failing check per such finding). Passing checks
 * state what was verified ("approved, nothing blocking", "all 3 findings met"). Never throws.
 */
export const verdictConsistent: Gate<VerdictClaim> = defineGate<VerdictClaim>(
  "verdictConsistent",
  (envelope, _context, report) => {
    const approved = envelope.approved === true;
    const blocking = claimedList(envelope.blocking);
    const findings = Array.isArray(envelope.findings) ? envelope.findings : [];

    if (approved && blocking.length > 0) {
      report.check("approved", false, `approved with ${blocking.length} blocking: ${blocking.join("; ")}`);
    } else if (!approved && blocking.length === 0) {
      report.check("approved", false, "not approved, yet nothing is blocking");
    } else {
      report.check(
        "approved",
        true,
        approved ? "approved, nothing blocking" : `not approved, ${blocking.length} blocking`,
      );
    }

    const unmet = findings.filter((finding) => finding.met !== true);
    if (!approved) {
      report.check("findings", true, `${findings.length - unmet.length} of ${findings.length} findings met`);
      return;
    }
    if (unmet.length === 0) report.check("findings", true, `all ${findings.length} findings met`);
    for (const finding of unmet)
      report.check(`finding "${finding.requirement}"`, false, "not met, yet approved");
  },
);
