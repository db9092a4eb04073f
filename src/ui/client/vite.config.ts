import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The client is built once, into the package (dist/ui/client, next to the compiled server in
// dist/ui/server): `sssf ui` serves these files and never builds anything.
const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: "./",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: path.resolve(here, "../../../dist/ui/client"),
    emptyOutDir: true,
    target: "es2022",
    // The CSP forbids inline script: no module-preload polyfill injected into the page.
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
});
