import { defineGate, type Gate } from "./gate.js";
import { vagueAdviceProblem } from "./next-recommended-specific.js";

/** Any envelope shaped like MarkdownResult. */
export interface StatusClaim {
  status?: string;
  result_status?: string;
  warning?: boolean;
  risks?: readonly { severity: string; text: string }[];
  next_recommended?: string;
}

/** Words by which a Next Recommended names what blocks a failed phase. */
const BLOCKER_WORDS = /\b(block(?:ed|er|ers|ing|s)?|fix|resolve|until|cannot|can't)\b/i;

/**
 * A Markdown report's status agrees with its risks (the contract's "don't return success if there are
 * CRITICAL risks"). The contract word is `result_status`, or derived from `status`/`warning` when absent.
 * Checks, precisely:
 * - `status`/`warning` match the contract word (success and warning are `status: "success"`, failure is
 *   `"fail"`, `warning` is true exactly for warning);
 * - success: no CRITICAL risk (one failing check per CRITICAL risk); WARNING and SUGGESTION risks are fine;
 * - warning: at least one risk of any severity (the concern it warns about);
 * - failure: says what blocks it — at least one CRITICAL risk, or a Next Recommended that is specific
 *   (`vagueAdviceProblem` finds nothing) and holds a blocker word: block/blocked/blocker/blocking/blocks,
 *   fix, resolve, until, cannot, can't.
 * Never throws.
 */
export const statusConsistent: Gate<StatusClaim> = defineGate<StatusClaim>(
  "statusConsistent",
  (envelope, _context, report) => {
    const word =
      envelope.result_status ??
      (envelope.status === "fail" ? "failure" : envelope.warning ? "warning" : "success");
    const risks = Array.isArray(envelope.risks) ? envelope.risks : [];
    const criticals = risks.filter((risk) => risk.severity === "CRITICAL");
    checkStatusFields(envelope, word, report.check.bind(report));

    if (word === "success") {
      if (criticals.length === 0) report.check("risks", true, "success, no CRITICAL risk");
      for (const risk of criticals) {
        report.check(
          `CRITICAL risk "${risk.text}"`,
          false,
          "reported with status success: resolve it, or report failure",
        );
      }
    } else if (word === "warning") {
      report.check(
        "risks",
        risks.length > 0,
        risks.length > 0
          ? `warning with ${risks.length} risk${risks.length === 1 ? "" : "s"}`
          : "status warning lists no risk: name the concern under ### Risks, or report success",
      );
    } else if (criticals.length > 0) {
      report.check(
        "risks",
        true,
        `failure blocked by ${criticals.length} CRITICAL risk${criticals.length === 1 ? "" : "s"}`,
      );
    } else {
      const next = envelope.next_recommended ?? "";
      const named = BLOCKER_WORDS.test(next) && vagueAdviceProblem(next) === null;
      report.check(
        "failure",
        named,
        named
          ? "failure, Next Recommended names the blocker"
          : "status failure says nothing about what blocks it: add a CRITICAL risk, or say in Next Recommended " +
              'what blocks the phase ("Blocked: …", "Fix … before …")',
      );
    }
  },
);

function checkStatusFields(
  envelope: StatusClaim,
  word: string,
  check: (item: string, ok: boolean, note: string) => void,
): void {
  if (envelope.status !== undefined) {
    const expected = word === "failure" ? "fail" : "success";
    check(
      "status",
      envelope.status === expected,
      envelope.status === expected
        ? `${envelope.status} for ${word}`
        : `"${envelope.status}" but the report says ${word}: expected "${expected}"`,
    );
  }
  if (envelope.warning !== undefined && envelope.result_status !== undefined) {
    const expected = word === "warning";
    if (envelope.warning !== expected)
      check("warning", false, `is ${envelope.warning} but the report says ${word}`);
  }
}
