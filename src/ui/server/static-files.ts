import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../../util/package-root.js";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/** One file the UI serves. */
export interface StaticFile {
  body: Uint8Array;
  type: string;
  /** Vite's hashed assets never change under one name; index.html may with every build. */
  cacheControl: string;
}

/**
 * The prebuilt client shipped in the package, `dist/ui/client`, also when run from the sources (tsx,
 * tests). Never throws; the folder may not exist (then the UI answers 503 with how to build it).
 */
export function defaultClientDir(): string {
  return path.join(packageRoot(), "dist/ui/client");
}

function walk(dir: string, base: string, files: Map<string, StaticFile>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const url = `${base}/${entry.name}`;
    if (entry.isDirectory()) walk(full, url, files);
    else if (entry.isFile() && TYPES[path.extname(entry.name)] !== undefined) {
      files.set(url, {
        body: readFileSync(full),
        type: TYPES[path.extname(entry.name)] ?? "application/octet-stream",
        cacheControl: url.startsWith("/assets/")
          ? "public, max-age=31536000, immutable"
          : url.endsWith(".html")
            ? "no-cache"
            : "public, max-age=3600",
      });
    }
  }
}

/**
 * Every servable file of the built client, read once into memory and keyed by URL path (`/index.html`,
 * `/assets/index-abc.js`): a request can only ever name one of these, never a path on disk.
 * Contract: never throws; a missing folder yields an empty map.
 */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  try {
    walk(dir, "", files);
  } catch {
    files.clear();
  }
  return files;
}
