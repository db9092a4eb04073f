// Builds dist/ as bundles: one file per entry point, with the code they share in dist/chunks/ and
// every command's module split off so it loads only when that command runs. One module graph (and one
// copy of each class and schema) serves the CLI, the library a workflow imports, and the scripts.
// tsc writes only the declarations (.d.ts) next to them.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Entry points, as their paths under src/ (each becomes dist/<same path>.js). */
const ENTRIES = [
  // The package's public entries (package.json exports; the bin, cli/main.ts, is built apart below).
  "index.ts",
  "testing/index.ts",
  // Programs sssf starts with the Node that runs it.
  "testing/scripted-agent.ts",
  // The zod a repo's workflow gets for `import { z } from "zod"` when the repo has none.
  "zod.ts",
  // Modules the benchmarks in bench/ drive directly.
  "trace/index.ts",
  "trace/sqlite.ts",
  "runtimes/exec/index.ts",
  "runtimes/claude-code/index.ts",
  "runtimes/codex/index.ts",
  "boundary/tree-listing.ts",
  "boundary/write-boundary.ts",
  "boundary/write-boundary-sends.ts",
  "envelope/parse-envelope.ts",
  "envelope/schemas.ts",
];

// Loaded at run time from node_modules: a native addon, tsx (it registers loader hooks by URL), yaml
// (required only when a config text is new to the config cache) and jsonrepair (only for a reply that
// needs repairing), so a run does not compile them.
const EXTERNAL = ["better-sqlite3", "tsx", "tsx/*", "@restatedev/restate-sdk", "yaml", "jsonrepair"];

// CommonJS dependencies (commander, yaml…) call require() for Node's built-ins; an ES bundle has none.
const BANNER = `import { createRequire as __sssfCreateRequire } from "node:module";
const require = __sssfCreateRequire(import.meta.url);`;

const version = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version;

/** The build's id: a hash of every source file and of the lockfile (what the config cache keys on). */
function buildId() {
  const hash = createHash("sha256");
  const files = readdirSync(path.join(root, "src"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
  for (const file of [...files, path.join(root, "package-lock.json")]) {
    hash.update(path.relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * zod's messages in English only: its other 60-odd locales are 0.5 MB of source that every start of
 * sssf would compile, and sssf never uses them. `z.locales.<other>()` through sssf's zod says how to
 * get them (a repo's own zod has them all).
 */
const englishZod = {
  name: "english-zod",
  setup(esbuild) {
    const locales = path.join(root, "node_modules/zod/v4/locales");
    esbuild.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      path.resolve(args.resolveDir, args.path) === path.join(locales, "index.js")
        ? { path: "zod-locales", namespace: "english-zod" }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: "english-zod" }, () => {
      const names = [...readFileSync(path.join(locales, "index.js"), "utf8").matchAll(/as (\w+) \}/g)]
        .map((m) => m[1])
        .filter((name) => name !== "en");
      const other = names.map(
        (name) =>
          `export const ${name} = () => { throw new Error(${JSON.stringify(`z.locales.${name}(): the zod bundled with sssf speaks English only; add zod to the repository (npm install zod) for its other locales`)}); };`,
      );
      return {
        contents: [
          `export { default as en } from ${JSON.stringify(path.join(locales, "en.js"))};`,
          ...other,
        ].join("\n"),
        resolveDir: locales,
        loader: "js",
      };
    });
  },
};

// A fresh dist/: files of an earlier build must not stay importable.
rmSync(path.join(root, "dist"), { recursive: true, force: true });

/** Where the program the bin imports lands: beside the chunks, outside dist/cli (CommonJS there). */
const PROGRAM_OUT = "chunks/cli-program";

await build({
  absWorkingDir: root,
  entryPoints: [
    ...ENTRIES.map((entry) => ({ in: path.join("src", entry), out: entry.replace(/\.ts$/, "") })),
    { in: "src/cli/program.ts", out: PROGRAM_OUT },
  ],
  outbase: "src",
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.12",
  external: EXTERNAL,
  banner: { js: BANNER },
  // The version is read once here, not from package.json at every start; the build id keys the config cache.
  define: { __SSSF_VERSION__: JSON.stringify(version), __SSSF_BUILD_ID__: JSON.stringify(buildId()) },
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "warning",
  plugins: [englishZod],
});

// The bin, dist/cli/main.js, as CommonJS (its folder says so): Node starts it without initialising its
// ES module loader, which only the program it imports needs; a prerendered `--help` never does.
mkdirSync(path.join(root, "dist/cli"), { recursive: true });
writeFileSync(path.join(root, "dist/cli/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
await build({
  absWorkingDir: root,
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/cli/main.js",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20.12",
  sourcemap: "linked",
  logLevel: "warning",
  // import.meta is only read when __dirname is missing (the ES module of src/): never in this build.
  logOverride: { "empty-import-meta": "silent" },
  plugins: [
    {
      name: "program-outside",
      setup(esbuild) {
        esbuild.onResolve({ filter: /^\.\/program\.js$/ }, () => ({
          path: `../${PROGRAM_OUT}.js`,
          external: true,
        }));
      },
    },
  ],
});

// `sssf --help` as commander prints it to a pipe in a folder with no workflows of its own: printed
// from this file by a later `sssf --help` that would print the same (src/cli/prerendered-help.ts).
const empty = mkdtempSync(path.join(tmpdir(), "sssf-help-"));
const env = { ...process.env };
for (const name of ["FORCE_COLOR", "CLICOLOR_FORCE", "NO_COLOR"]) delete env[name];
const help = spawnSync(process.execPath, [path.join(root, "dist/cli/main.js"), "--help"], {
  cwd: empty,
  env,
  encoding: "utf8",
});
rmSync(empty, { recursive: true, force: true });
if (help.status !== 0 || help.stdout === "") {
  console.error(`bundle: sssf --help failed (exit ${help.status}): ${help.stderr}`);
  process.exit(1);
}
writeFileSync(path.join(root, "dist/cli/help.txt"), help.stdout);
