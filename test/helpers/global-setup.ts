import { chromiumBinary } from "./chromium.js";

/** Runs once before the test files: the UI tests' Chromium is unpacked here, not by racing workers. */
export default async function setup(): Promise<void> {
  await chromiumBinary();
}
