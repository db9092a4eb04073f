import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The JSON report feeds the "N passed, N failed" line CI prints.
    reporters: ["default", ["json", { outputFile: "test-artifacts/vitest.json" }]],
  },
});
