import type { GateReport } from "../gates/gate.js";
import type { EnvelopeProblem } from "./envelope-problem.js";
import { exampleJsonBlock } from "./example-block.js";
import type { OutputType } from "./output-type.js";

/**
 * The message sent back into the same agent session when its reply held no valid envelope: one
 * bullet per problem naming the field by path, then a request for ONLY the corrected JSON object with
 * the type's example. Deterministic: the same inputs give the same text. Never throws.
 *
 * @example
 * jsonCorrectionMessage(ReviewOutput, [{ path: "findings[0].met", message: "expected boolean, got string" }]);
 */
export function jsonCorrectionMessage(type: OutputType, problems: EnvelopeProblem[]): string {
  const bullets =
    problems.length > 0
      ? problems.map((problem) =>
          problem.path === "" ? `- ${problem.message}` : `- \`${problem.path}\`: ${problem.message}`,
        )
      : [`- the reply did not validate against \`${type.name}\``];
  return [
    `Your reply could not be accepted: it must contain a JSON object matching \`${type.name}\`.`,
    "",
    "Problems:",
    ...bullets,
    "",
    `Reply with ONLY the corrected JSON object matching \`${type.name}\`, no prose before or after. Expected shape:`,
    "",
    exampleJsonBlock(type),
  ].join("\n");
}

/**
 * The message sent back into the same agent session when gates found its claims untrue: per failed
 * gate, each violation (item and note), then a request to fix the work or the claims and reply with
 * the complete envelope. Passing reports are left out. Deterministic. Never throws.
 *
 * @example gateCorrectionMessage(BuildOutput, reports.filter((report) => !report.ok));
 */
export function gateCorrectionMessage(type: OutputType, reports: readonly GateReport[]): string {
  return [
    "Your JSON envelope was valid, but checking its claims against the repository found problems.",
    "",
    ...failedGateSections(reports),
    "Fix the work, or correct the claims that are wrong, then reply again with the complete JSON envelope " +
      `matching \`${type.name}\`: ONLY the JSON object, no prose before or after.`,
  ].join("\n");
}

/**
 * One block per failed gate (its name, then each violation as a bullet), each followed by a blank
 * line: the body both correction formats (JSON and Markdown) share. Never throws.
 */
export function failedGateSections(reports: readonly GateReport[]): string[] {
  return reports
    .filter((report) => !report.ok)
    .flatMap((report) => [
      [`Gate \`${report.gate}\` failed:`, ...report.violations.map((violation) => `- ${violation}`)].join(
        "\n",
      ),
      "",
    ]);
}
