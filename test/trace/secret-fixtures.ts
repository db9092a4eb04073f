import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** One kind of secret: how it is written into hostile text, and the part that must never be stored. */
export interface SecretSample {
  kind: string;
  /** Text that carries the secret. */
  text: string;
  /** What must not appear anywhere afterwards. */
  secret: string;
}

/** A token of every pattern `redactSecrets` knows, each with the part a leak would show. */
export const PATTERN_SAMPLES: readonly SecretSample[] = [
  { kind: "anthropic", text: `sk-ant-api03-${"Qa".repeat(20)}`, secret: `api03-${"Qa".repeat(20)}` },
  { kind: "openai", text: `sk-proj-${"Zo9".repeat(10)}`, secret: `proj-${"Zo9".repeat(10)}` },
  { kind: "google", text: `AIza${"Gg7".repeat(11)}Gg`, secret: `${"Gg7".repeat(11)}Gg` },
  { kind: "github", text: `ghp_${"Hb4".repeat(12)}`, secret: `${"Hb4".repeat(12)}` },
  { kind: "github-pat", text: `github_pat_11${"Fd5".repeat(14)}`, secret: `${"Fd5".repeat(14)}` },
  { kind: "slack", text: "xoxb-2718281828-slacksecretvalue", secret: "2718281828-slacksecretvalue" },
  { kind: "aws-key-id", text: "AKIAQWERTYUIOPASDFGH", secret: "QWERTYUIOPASDFGH" },
  { kind: "bearer", text: "Authorization: Bearer eyJbearer.pAyLoAd.sIgNaTuRe", secret: "eyJbearer.pAyLoAd" },
  { kind: "named", text: "DB_PASSWORD=hunter2hunter2", secret: "hunter2hunter2" },
];

/** Every pattern sample in one line of prose. */
export const PATTERN_TEXT = PATTERN_SAMPLES.map((sample) => `${sample.kind} ${sample.text}`).join(" ; ");

/** Every file under `dir` (recursively), skipping folders for which `skip` returns true. */
export function filesUnder(dir: string, skip: (folder: string) => boolean = () => false): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip(full)) files.push(...filesUnder(full, skip));
    } else if (entry.isFile() || statSync(full).isFile()) {
      files.push(full);
    }
  }
  return files;
}

/** `label: secret kind` for every secret found in `bytes` (searched as UTF-8 and as a JSON string). */
export function leaksIn(
  label: string,
  bytes: Buffer | string,
  secrets: readonly { kind: string; secret: string }[],
): string[] {
  const haystack = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  const found: string[] = [];
  for (const { kind, secret } of secrets) {
    const forms = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
    if ([...forms].some((form) => haystack.includes(Buffer.from(form)))) found.push(`${label}: ${kind}`);
  }
  return found;
}

/** {@link leaksIn} over every file given, read whole. */
export function leaksInFiles(files: readonly string[], secrets: readonly { kind: string; secret: string }[]) {
  return files.flatMap((file) => leaksIn(file, readFileSync(file), secrets));
}
