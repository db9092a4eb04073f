import { afterEach, describe, expect, it } from "vitest";
import { gates } from "../../src/gates/index.js";
import { makeTempDir, removeTempDir } from "../code/fixtures.js";
import { gateContext } from "./gate-context.js";

let dir = "";
afterEach(() => removeTempDir(dir));

describe("verdictConsistent", () => {
  const context = () => {
    dir = makeTempDir("verdict");
    return gateContext(dir);
  };

  it("passes an approval with nothing blocking and every finding met", async () => {
    const findings = [{ requirement: "GET /health returns 200", met: true, evidence: "test/health.test.ts" }];
    const report = await gates.verdictConsistent.run({ approved: true, blocking: [], findings }, context());
    expect(report.checks).toEqual([
      { item: "approved", ok: true, note: "approved, nothing blocking" },
      { item: "findings", ok: true, note: "all 1 findings met" },
    ]);
  });

  it("passes a rejection that names what blocks", async () => {
    const findings = [{ requirement: "logs requests", met: false, evidence: "" }];
    const report = await gates.verdictConsistent.run(
      { approved: false, blocking: ["add logging"], findings },
      context(),
    );
    expect(report.ok).toBe(true);
    expect(report.checks[0]).toEqual({ item: "approved", ok: true, note: "not approved, 1 blocking" });
  });

  it("fails an approval with blocking items or unmet findings", async () => {
    const findings = [
      { requirement: "returns 200", met: true, evidence: "t" },
      { requirement: "logs requests", met: false, evidence: "" },
    ];
    const report = await gates.verdictConsistent.run(
      { approved: true, blocking: ["add logging"], findings },
      context(),
    );
    expect(report.violations).toEqual([
      "approved: approved with 1 blocking: add logging",
      'finding "logs requests": not met, yet approved',
    ]);
  });

  it("fails a rejection with nothing blocking", async () => {
    const report = await gates.verdictConsistent.run(
      { approved: false, blocking: [], findings: [] },
      context(),
    );
    expect(report.violations).toEqual(["approved: not approved, yet nothing is blocking"]);
  });
});

describe("testsPass", () => {
  it("passes a suite that exits 0 and quotes its output", async () => {
    dir = makeTempDir("suite");
    const context = gateContext(dir, {
      suites: { test: ["node", "-e", "console.log('3 passed, 0 failed')"] },
    });
    const gate = gates.testsPass("test");
    const report = await gate.run({}, context);
    expect(gate.name).toBe("testsPass(test)");
    expect(report.ok).toBe(true);
    expect(report.checks[0]?.item).toBe("suite test");
    expect(report.checks[0]?.note).toMatch(
      /^passed: exit code 0 after \d+ ms; last output:\n3 passed, 0 failed$/,
    );
  });

  it("fails a suite that exits non-zero", async () => {
    dir = makeTempDir("suite");
    const command = ["node", "-e", "console.error('1 failed'); process.exit(1)"];
    const report = await gates.testsPass("test").run({}, gateContext(dir, { suites: { test: command } }));
    expect(report.ok).toBe(false);
    expect(report.violations[0]).toMatch(
      /^suite test: failed: exit code 1 after \d+ ms; last output:\n1 failed$/,
    );
  });

  it("fails the plain process.exit(1) suite with no output", async () => {
    dir = makeTempDir("suite");
    const command = ["node", "-e", "process.exit(1)"];
    const report = await gates.testsPass("unit").run({}, gateContext(dir, { suites: { unit: command } }));
    expect(report.violations).toEqual([
      expect.stringMatching(/^suite unit: failed: exit code 1 after \d+ ms, no output$/),
    ]);
  });
});
