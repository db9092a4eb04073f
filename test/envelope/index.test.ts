import { describe, expect, it } from "vitest";
import * as envelope from "../../src/envelope/index.js";

describe("envelope module index", () => {
  it("re-exports the public API and the built-in types", () => {
    for (const name of [
      "extractJsonCandidates",
      "parseEnvelope",
      "jsonCorrectionMessage",
      "gateCorrectionMessage",
      "outputJsonSchema",
      "reportSection",
      "defineOutputType",
    ]) {
      expect(typeof envelope[name as keyof typeof envelope]).toBe("function");
    }
    expect(Object.keys(envelope.builtinOutputTypes).sort()).toEqual([
      "BuildOutput",
      "ChangesOutput",
      "DocumentOutput",
      "GenericOutput",
      "PlanOutput",
      "ReviewOutput",
      "ScoutOutput",
      "VerifyOutput",
    ]);
    for (const [name, type] of Object.entries(envelope.builtinOutputTypes)) {
      expect(envelope[name as keyof typeof envelope]).toBe(type);
    }
    expect(envelope.EnvelopeBase.shape.status.options).toEqual(["success", "fail"]);
    expect(envelope.parseEnvelope('{"status": "success"}', envelope.GenericOutput).ok).toBe(true);
  });
});
