// Builds dist/ as one CommonJS bundle, dist/cli/sssf.js (src/bundle.ts: the program and every entry
// point, each module loaded when first used), so the CLI, the library a workflow imports and the
// scripts share one copy of each class and schema. Each
// entry point's own file (dist/index.js…) is a small ES module re-exporting its part of the bundle; the
// scripted agent, a program of its own, is a bundle apart. tsc writes only the declarations (.d.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// Loaded at run time from node_modules: tsx (it registers loader hooks by URL), the Restate SDK (only
// `sssf worker` needs it), jsonrepair (only for a reply that needs repairing) and OpenTelemetry (only when
// an OTLP endpoint is set).
const EXTERNAL = ["tsx", "tsx/*", "@restatedev/restate-sdk", "jsonrepair", "@opentelemetry/*"];

// CommonJS dependencies call require() for Node's built-ins; an ES bundle has none.
const ESM_BANNER = `import { createRequire as __sssfCreateRequire } from "node:module";
const require = __sssfCreateRequire(import.meta.url);`;

// The sources' `import.meta.url`, in the CommonJS bundle: the bundle's own file.
const CJS_BANNER = `var __sssfImportMetaUrl = require("node:url").pathToFileURL(__filename).href;`;

const version = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version;

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

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node22.13",
  sourcemap: "linked",
  logLevel: "warning",
};
const define = { __SSSF_VERSION__: JSON.stringify(version) };

/**
 * Each entry point's export names, as esbuild sees them (an ES build that is not written); `entries`
 * are their paths under src/ without `.ts`.
 */
async function exportNames(entries) {
  const result = await build({
    ...common,
    entryPoints: entries.map((entry) => ({ in: path.join("src", `${entry}.ts`), out: entry })),
    outdir: "dist",
    outbase: "src",
    splitting: true,
    format: "esm",
    sourcemap: false,
    external: EXTERNAL,
    write: false,
    metafile: true,
    plugins: [englishZod],
  });
  return new Map(entries.map((entry) => [entry, result.metafile.outputs[`dist/${entry}.js`]?.exports ?? []]));
}

/** The ES module of entry point `name` (a path under src/ without `.ts`), re-exporting `names` from the bundle. */
function entryModule(name, names) {
  const bundle = path.relative(path.dirname(path.join("dist", name)), "dist/cli/sssf.js");
  const named = names.filter((n) => n !== "default");
  const lines = [
    `// Entry point ${name} of sssf: its part of the one bundle, dist/cli/sssf.js (scripts/bundle.mjs).`,
    `import bundle from ${JSON.stringify(bundle.startsWith(".") ? bundle : `./${bundle}`)};`,
    `const entry = await bundle.entry(${JSON.stringify(name)});`,
  ];
  if (named.length > 0) {
    // Through locals: some names (zod's \`enum\`, \`null\`…) are words a declaration cannot use.
    lines.push(`const { ${named.map((n, i) => `${JSON.stringify(n)}: e${i}`).join(", ")} } = entry;`);
    lines.push(`export { ${named.map((n, i) => `e${i} as ${n}`).join(", ")} };`);
  }
  if (names.includes("default")) lines.push("export default entry.default;");
  return `${lines.join("\n")}\n`;
}

/**
 * Node's built-in modules as ES modules of the bundle: esbuild would otherwise wrap the built-in in a
 * fresh copy of its exports (`__toESM`) in every module that default-imports it (about 150 copies of
 * `node:path`, `node:fs`… at each start). The one copy re-exports through getters, so a built-in's
 * property is read only when used (Node 24 warns on reading `fs.F_OK`).
 */
const builtinsOnce = {
  name: "builtins-once",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^node:/ }, (args) =>
      args.namespace === "builtin"
        ? { path: args.path, external: true }
        : { path: args.path, namespace: "builtin" },
    );
    esbuild.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
      contents: [
        `import builtin from ${JSON.stringify(args.path)};`,
        "export default builtin;",
        `export * from ${JSON.stringify(args.path)};`,
      ].join("\n"),
      loader: "js",
    }));
  },
};

// The bundle: CommonJS, in dist/cli (whose package.json says so).
mkdirSync(path.join(root, "dist/cli"), { recursive: true });
writeFileSync(path.join(root, "dist/cli/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
await build({
  ...common,
  entryPoints: ["src/bundle.ts"],
  outfile: "dist/cli/sssf.js",
  format: "cjs",
  external: EXTERNAL,
  banner: { js: CJS_BANNER },
  // The version is read once here, not from package.json at every start.
  define: { ...define, "import.meta.url": "__sssfImportMetaUrl" },
  // import.meta.resolve is only reached from src/ (tsx, vitest), never from this build.
  logOverride: { "empty-import-meta": "silent" },
  legalComments: "linked",
  // Pure ASCII, and no comments or indentation: V8 keeps a one-byte string of half the size, and has
  // less to scan on a start (the source map, in a clone, still points into src/).
  charset: "ascii",
  minifyWhitespace: true,
  plugins: [englishZod, builtinsOnce],
});
const bundleText = readFileSync(path.join(root, "dist/cli/sssf.js"));
const nonAscii = bundleText.findIndex((byte) => byte > 0x7f);
if (nonAscii >= 0) {
  const at = bundleText.subarray(Math.max(0, nonAscii - 60), nonAscii + 20).toString("utf8");
  console.error(
    `bundle: dist/cli/sssf.js is not ASCII near ${JSON.stringify(at)}; write the character as \\u escape`,
  );
  process.exit(1);
}
// The entry points are the ones src/bundle.ts lists, each written as dist/<its path>.js.
const { entryNames } = createRequire(import.meta.url)(path.join(root, "dist/cli/sssf.js"));
const names = await exportNames(entryNames);
for (const entry of entryNames) {
  const file = path.join(root, "dist", `${entry}.js`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, entryModule(entry, names.get(entry)));
}

// The scripted agent: a program sssf's tests start many times, so it loads only its own modules.
await build({
  ...common,
  entryPoints: ["src/testing/scripted-agent.ts"],
  outfile: "dist/testing/scripted-agent.js",
  format: "esm",
  external: EXTERNAL,
  banner: { js: ESM_BANNER },
  define,
  plugins: [englishZod],
});

// The bin, dist/cli/main.js, as CommonJS: it checks the Node version and requires the bundle.
await build({
  ...common,
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/cli/main.js",
  format: "cjs",
  define,
  // import.meta is only read when __dirname is missing (the ES module of src/): never in this build.
  logOverride: { "empty-import-meta": "silent" },
  plugins: [
    {
      // src/ imports the program as an ES module; the build requires the bundle instead.
      name: "program-outside",
      setup(esbuild) {
        esbuild.onResolve({ filter: /^\.\/program\.js$/ }, () => ({ path: "./program.js", external: true }));
      },
    },
  ],
});
