import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";

/** Runs `code` as an ES module that has `z`, the zod of the built `dist/zod.js`, and returns what it printed. */
function withBundledZod(code: string): string {
  const url = new URL(`file://${path.join(repoRoot, "dist/zod.js")}`).href;
  return execFileSync(
    process.execPath,
    ["--input-type=module", "-e", `const { z } = await import(${JSON.stringify(url)});\n${code}`],
    {
      encoding: "utf8",
    },
  );
}

describe("the zod bundled with sssf", () => {
  it("speaks English, and says how to get another locale instead of failing obscurely", () => {
    const out = withBundledZod(`
      console.log(z.string().safeParse(1).error.issues[0].message);
      z.config(z.locales.en());
      console.log(z.object({ n: z.number() }).safeParse({}).error.issues[0].message);
      for (const name of ["de", "fr", "ja"]) {
        try { z.locales[name](); console.log(name, "loaded"); } catch (error) { console.log(error.message); }
      }
    `);
    expect(out.split("\n")).toEqual([
      "Invalid input: expected string, received number",
      "Invalid input: expected number, received undefined",
      ...["de", "fr", "ja"].map(
        (name) =>
          `z.locales.${name}(): the zod bundled with sssf speaks English only; add zod to the repository (npm install zod) for its other locales`,
      ),
      "",
    ]);
  });
});
