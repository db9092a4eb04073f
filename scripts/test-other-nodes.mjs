// The end-to-end tests (every command through the CLI, on the built bundle) and the trace's own tests
// (node:sqlite, the one Node module whose API moves between majors), again on Node 22 and Node 26:
// users run 22, 24 and 26, and the whole suite runs on Node 24 (the `node` dev dependency, which npm
// scripts find first on PATH). Each other Node comes from the package registry
// (`node-<platform>-<arch>`, a plain binary, no install script) into node_modules/.cache/sssf-node<major>,
// and is first on the leg's PATH, so the agents and scripts the tests start run on it too. A leg is
// skipped, saying so, when this Node is already that major or when SSSF_SKIP_NODE<major>=1
// (SSSF_SKIP_NODE22=1, SSSF_SKIP_NODE26=1).
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const MAJORS = [22, 26];
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

/** Workers per leg: two legs side by side on a 2-core machine, each waiting on child processes. */
const LEG_WORKERS = Number(process.env.SSSF_LEG_WORKERS ?? 2);

/** What each other Node runs: the end-to-end tests and the trace store's. */
const LEG_TESTS = ["test/e2e", "test/trace"];

/**
 * Runs LEG_TESTS on Node `major`; its report goes to test-artifacts/vitest-node<major>.json and its
 * output to test-artifacts/vitest-node<major>.log (printed when it ends, so legs running side by side
 * do not interleave). Resolves to the exit status.
 */
async function leg(major) {
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
  console.log(`test-node${major}: ${LEG_TESTS.join(" ")} on Node ${version}`);
  mkdirSync(path.join(root, "test-artifacts"), { recursive: true });
  const logFile = path.join(root, `test-artifacts/vitest-node${major}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(
    binary,
    [
      path.join(root, "node_modules/vitest/vitest.mjs"),
      "run",
      ...LEG_TESTS,
      "--typecheck.enabled=false",
      `--maxWorkers=${LEG_WORKERS}`,
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH ?? ""}`,
        SSSF_VITEST_JSON: `test-artifacts/vitest-node${major}.json`,
      },
    },
  );
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const status = await new Promise((resolve) => {
    child.on("error", () => resolve(1));
    child.on("close", (code) => resolve(code ?? 1));
  });
  await new Promise((resolve) => log.end(resolve));
  console.log(`\n===== test-node${major} (exit ${status}) =====`);
  process.stdout.write(readFileSync(logFile, "utf8"));
  return status;
}

// The legs run side by side (their tests mostly wait on child processes); every leg runs, whichever
// failed: CI counts every leg's report.
const statuses = await Promise.all(MAJORS.map((major) => leg(major)));
process.exit(statuses.find((status) => status !== 0) ?? 0);
