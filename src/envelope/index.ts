export { gateCorrectionMessage, jsonCorrectionMessage } from "./correction.js";
export type { EnvelopeProblem } from "./envelope-problem.js";
export { extractJsonCandidates } from "./extract-json.js";
export {
  markdownCorrectionMessage,
  markdownGateCorrectionMessage,
  sectionLabel,
} from "./markdown-correction.js";
export { markdownTypeProblem, parseMarkdownEnvelope } from "./markdown-envelope.js";
export { type NextStepKind, type NextStepReading, readNextStep } from "./markdown-next-step.js";
export {
  type MarkdownProblem,
  type MarkdownResultEnvelope,
  type ParseMarkdownResult,
  parseMarkdownResult,
} from "./markdown-parse.js";
export { renderMarkdownResult } from "./markdown-render.js";
export { markdownContractRules, markdownReportSection } from "./markdown-report-section.js";
export { MarkdownResult, RISK_SEVERITIES, Risk, type RiskSeverity } from "./markdown-result-type.js";
export { defineOutputType, type EnvelopeOf, type OutputType } from "./output-type.js";
export {
  type LocatedEnvelope,
  locateEnvelope,
  type ParseEnvelopeResult,
  parseEnvelope,
} from "./parse-envelope.js";
export { findTemplateReport, GENERATED_REPORT_MARK, type TemplateReport } from "./report-placement.js";
export { outputJsonSchema, reportSection } from "./report-section.js";
export {
  BuildOutput,
  builtinOutputTypes,
  ChangesOutput,
  DocumentOutput,
  EnvelopeBase,
  FileChange,
  GenericOutput,
  PlanOutput,
  ReviewFinding,
  ReviewOutput,
  ScoutFinding,
  ScoutOutput,
  VerifyOutput,
} from "./schemas.js";
