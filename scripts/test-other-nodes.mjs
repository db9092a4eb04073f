// The end-to-end tests again on Node 24, what users run (the suite itself runs on this machine's Node).
// Node 24 comes from the package registry (`node-<platform>-<arch>`, a plain binary, no install script)
// into node_modules/.cache; there the trace uses node:sqlite, so this also tests the driver that needs
// no compiler. Skipped, saying so, when the machine's Node is already 24 or when SSSF_SKIP_NODE24=1.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const MAJOR = 24;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

if (process.env.SSSF_SKIP_NODE24 === "1" || Number(process.versions.node.split(".")[0]) === MAJOR) {
  console.log(
    `test-node24: skipped (${process.env.SSSF_SKIP_NODE24 === "1" ? "SSSF_SKIP_NODE24=1" : `already on Node ${process.version}`})`,
  );
  process.exit(0);
}

const platform = process.platform === "win32" ? "win" : process.platform;
const binaryPackage = `node-${platform}-${process.arch}`;
const prefix = path.join(root, "node_modules/.cache/sssf-node24");
const binary =
  process.platform === "win32"
    ? path.join(prefix, "node_modules", binaryPackage, "bin/node.exe")
    : path.join(prefix, "node_modules", binaryPackage, "bin/node");

if (!existsSync(binary)) {
  mkdirSync(prefix, { recursive: true });
  console.log(`test-node24: fetching ${binaryPackage}@${MAJOR} into ${path.relative(root, prefix)}`);
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
      `${binaryPackage}@${MAJOR}`,
    ],
    { stdio: "inherit" },
  );
  if (installed.status !== 0 || !existsSync(binary)) {
    console.error(
      `test-node24: could not install ${binaryPackage}@${MAJOR} (set SSSF_SKIP_NODE24=1 to skip this leg)`,
    );
    process.exit(1);
  }
}

const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(`test-node24: test/e2e on Node ${version} (node:sqlite)`);
const run = spawnSync(
  binary,
  [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "test/e2e", "--typecheck.enabled=false"],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      SSSF_SQLITE_DRIVER: "node:sqlite",
      SSSF_VITEST_JSON: "test-artifacts/vitest-node24.json",
    },
  },
);
process.exit(run.status ?? 1);
