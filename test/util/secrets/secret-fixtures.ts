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

/** An AWS secret access key (random), printed without its variable name. */
const AWS_SECRET_KEY = "sdfJ3Hl2U6RrbYa8zUmh0x3Ec4dY62eK7xBRJrWF";
const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJlMmUtdXNlci00NzExIiwiaWF0IjoxNzAwMDAwMDAwfQ.65FDmwPrua3A39hUInixjiLgrLWPMIUCCghgzFzpwnA";
const PEM_BODY =
  "NrwM+s9WPnewmpduSIAfhSLuIqsrwWHfjpvYBoW6peEcq1BbvXW0xodiejcmBfWiCDTbhAPWki1PqAWPDsLVjT8QwSp1CAZKXH4vvfSmpjgdu+EIo3mk8rs0z81nzsmrZYEgsq6z0F191vEJPoS/J7fGW8L/sw1s6rsQfPLK9dRX+PkPT706U6MqRdlux0HrvPU8I4Dz782zvnDUvHMMGd7RGD0EqSwMWHRRVVjuxjEeFYRw";
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY.match(/.{1,64}/g)?.join("\n")}\n-----END RSA PRIVATE KEY-----`;
/** A GitHub token that appears only inside base64. */
const GITHUB_IN_BASE64 = "ghp_Xq7Lk2Vb9Nw4Ht6Rz1Pm8Jc3Fd5Gs0Ya2Ue4Wi";

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
  { kind: "aws-secret-key", text: AWS_SECRET_KEY, secret: AWS_SECRET_KEY },
  { kind: "jwt", text: JWT, secret: JWT.split(".")[1] as string },
  { kind: "private-key", text: PEM, secret: PEM_BODY.slice(0, 64) },
  { kind: "private-key end", text: PEM, secret: PEM_BODY.slice(-40) },
  { kind: "stripe", text: "sk_live_FBiiEtXsyhsrucrw1jBznd8H", secret: "FBiiEtXsyhsrucrw1jBznd8H" },
  { kind: "stripe-restricted", text: "rk_live_T7tHMcKxDinJjpN96gQvniMZ", secret: "T7tHMcKxDinJjpN96gQvniMZ" },
  {
    kind: "base64-wrapped key",
    text: `echo ${Buffer.from(`export KEY=${GITHUB_IN_BASE64}`).toString("base64")} | base64 -d`,
    secret: Buffer.from(`export KEY=${GITHUB_IN_BASE64}`).toString("base64").slice(8, 40),
  },
];

/**
 * A key the e2e agent prints split across two tool outputs of one send: `SPLIT_KEY.slice(0, 20)` ends
 * one output, the rest starts the next. Neither half may be stored where tool results are (the trace).
 */
export const SPLIT_KEY = "ghp_SoNNeqUb69HN8iCzkQw2hR2fjJdEwoMRMC";

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

/** `label: secret kind` for every secret found in `bytes` (searched as UTF-8, as a JSON string and in base64). */
export function leaksIn(
  label: string,
  bytes: Buffer | string,
  secrets: readonly { kind: string; secret: string }[],
): string[] {
  const haystack = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  const found: string[] = [];
  for (const { kind, secret } of secrets) {
    // As written, inside a JSON string, and in base64 (a stored copy someone could decode).
    const forms = new Set([
      secret,
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString("base64"),
    ]);
    if ([...forms].some((form) => haystack.includes(Buffer.from(form)))) found.push(`${label}: ${kind}`);
  }
  return found;
}

/** {@link leaksIn} over every file given, read whole. */
export function leaksInFiles(files: readonly string[], secrets: readonly { kind: string; secret: string }[]) {
  return files.flatMap((file) => leaksIn(file, readFileSync(file), secrets));
}
