import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    // Most test files wait on child processes (the CLI, agents, git, servers): run four at once even on
    // two cores (SSSF_TEST_WORKERS to change it), with timeouts that leave room for the shared CPU.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: Number(process.env.SSSF_TEST_WORKERS ?? 4),
    // Unpacks the UI tests' Chromium once, before any test file could race to do it.
    globalSetup: ["test/helpers/global-setup.ts"],
    // The JSON report feeds the "N passed, N failed" line CI prints (the Node 24 and 22 legs write their own).
    reporters: [
      "default",
      ["json", { outputFile: process.env.SSSF_VITEST_JSON ?? "test-artifacts/vitest.json" }],
    ],
  },
});
