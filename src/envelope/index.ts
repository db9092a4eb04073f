export { gateCorrectionMessage, jsonCorrectionMessage } from "./correction.js";
export { extractJsonCandidates } from "./extract-json.js";
export { defineOutputType, type EnvelopeOf, type OutputType } from "./output-type.js";
export { type EnvelopeProblem, type ParseEnvelopeResult, parseEnvelope } from "./parse-envelope.js";
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
