import { describe, expect, it } from "vitest";
import { getRuntime, registeredRuntimeIds } from "../../src/library.js";
import { BUILTIN_RUNTIME_IDS } from "../../src/runtimes/builtins.js";

describe("the library's runtimes", () => {
  it("has every built-in runtime loaded, so getRuntime answers synchronously for each id", () => {
    expect(registeredRuntimeIds().slice(0, BUILTIN_RUNTIME_IDS.length)).toEqual([...BUILTIN_RUNTIME_IDS]);
    for (const id of BUILTIN_RUNTIME_IDS) expect(getRuntime(id)?.id).toBe(id);
  });
});
