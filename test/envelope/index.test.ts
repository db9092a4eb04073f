import { describe, expect, it } from "vitest";
import {
  BuildOutput,
  builtinOutputTypes,
  ChangesOutput,
  DocumentOutput,
  defineOutputType,
  EnvelopeBase,
  extractJsonCandidates,
  GenericOutput,
  gateCorrectionMessage,
  jsonCorrectionMessage,
  outputJsonSchema,
  PlanOutput,
  parseEnvelope,
  ReviewOutput,
  reportSection,
  ScoutOutput,
  VerifyOutput,
} from "../../src/envelope/index.js";

describe("envelope module index", () => {
  it("re-exports the functions and the built-in types", () => {
    for (const fn of [
      extractJsonCandidates,
      parseEnvelope,
      jsonCorrectionMessage,
      gateCorrectionMessage,
      outputJsonSchema,
      reportSection,
      defineOutputType,
    ]) {
      expect(typeof fn).toBe("function");
    }
    expect(builtinOutputTypes).toEqual({
      GenericOutput,
      PlanOutput,
      BuildOutput,
      ScoutOutput,
      ReviewOutput,
      DocumentOutput,
      VerifyOutput,
      ChangesOutput,
    });
    expect(EnvelopeBase.shape.status.options).toEqual(["success", "fail"]);
    expect(parseEnvelope('{"status": "success"}', GenericOutput).ok).toBe(true);
  });
});
