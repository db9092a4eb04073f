import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromiumBinary } from "./chromium.js";

/**
 * Runs once before the test files: the UI tests' Chromium is unpacked here, not by racing workers, and
 * the config cache of every sssf the tests start goes to a folder of this run's (not the user's own).
 */
export default async function setup(): Promise<() => void> {
  const cache = mkdtempSync(path.join(tmpdir(), "sssf-test-cache-"));
  process.env.SSSF_CACHE_DIR ??= cache;
  await chromiumBinary();
  return () => rmSync(cache, { recursive: true, force: true });
}
