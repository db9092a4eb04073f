// The end-to-end tests, and the tests of what differs most between drivers and Nodes (the trace, the
// lifecycle and its reaper, resume, sixteen runs at once on one repository), again on Node 24 and
// Node 22, what users run (the suite itself runs on this machine's Node). Each Node comes from the package registry (`node-<platform>-<arch>`, a plain binary,
// no install script) into node_modules/.cache/sssf-node<major>; there the trace uses node:sqlite, so this
// also tests the driver that needs no compiler. A leg is skipped, saying so, when the machine's Node is
// already that major or when SSSF_SKIP_NODE<major>=1 (SSSF_SKIP_NODE24=1, SSSF_SKIP_NODE22=1).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const MAJORS = [24, 22];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const platform = process.platform === "win32" ? "win" : process.platform;
const binaryPackage = `node-${platform}-${process.arch}`;

/** The cached binary of Node `major`, fetched on first use; null (having said why) when it cannot be. */
function nodeBinary(major) {
  const prefix = path.join(root, `node_modules/.cache/sssf-node${major}`);
  const binary =
    process.platform === "win32"
      ? path.join(prefix, "node_modules", binaryPackage, "bin/node.exe")
      : path.join(prefix, "node_modules", binaryPackage, "bin/node");
  if (existsSync(binary)) return binary;
  mkdirSync(prefix, { recursive: true });
  console.log(`test-node${major}: fetching ${binaryPackage}@${major} into ${path.relative(root, prefix)}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const installed = spawnSync(
    npm,
    [
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      `${binaryPackage}@${major}`,
    ],
    { stdio: "inherit" },
  );
  if (installed.status === 0 && existsSync(binary)) return binary;
  console.error(
    `test-node${major}: could not install ${binaryPackage}@${major} (set SSSF_SKIP_NODE${major}=1 to skip this leg)`,
  );
  return null;
}

/** What each other Node runs: the end-to-end tests and the driver-sensitive ones. */
const LEG_TESTS = [
  "test/e2e",
  "test/trace",
  "test/lifecycle",
  "test/resume",
  "test/worktree/worktree-concurrent.test.ts",
];

/** Runs LEG_TESTS on Node `major`; its report goes to test-artifacts/vitest-node<major>.json. Returns the exit status. */
function leg(major) {
  const skip = process.env[`SSSF_SKIP_NODE${major}`] === "1";
  if (skip || Number(process.versions.node.split(".")[0]) === major) {
    console.log(
      `test-node${major}: skipped (${skip ? `SSSF_SKIP_NODE${major}=1` : `already on Node ${process.version}`})`,
    );
    return 0;
  }
  const binary = nodeBinary(major);
  if (binary === null) return 1;
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
  console.log(`test-node${major}: ${LEG_TESTS.join(" ")} on Node ${version} (node:sqlite)`);
  const run = spawnSync(
    binary,
    [path.join(root, "node_modules/vitest/vitest.mjs"), "run", ...LEG_TESTS, "--typecheck.enabled=false"],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        SSSF_SQLITE_DRIVER: "node:sqlite",
        SSSF_VITEST_JSON: `test-artifacts/vitest-node${major}.json`,
      },
    },
  );
  return run.status ?? 1;
}

// Every leg runs, whichever failed: CI counts every leg's report.
let status = 0;
for (const major of MAJORS) status = leg(major) || status;
process.exit(status);
