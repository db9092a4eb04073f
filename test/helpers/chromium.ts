import { execFileSync } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import chromiumPackage from "@sparticuz/chromium";

/** What to launch: the binary, its flags, and the environment it needs. */
export interface ChromiumBinary {
  executablePath: string;
  args: string[];
  /** Set when the machine lacks libraries the binary needs and the package's own copies are used. */
  env?: Record<string, string>;
}

/** The shared libraries `binary` needs that the machine lacks (none where `ldd` is missing). */
function missingLibraries(binary: string, env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    const listed = execFileSync("ldd", [binary], { encoding: "utf8", env });
    return listed
      .split("\n")
      .filter((line) => line.includes("not found"))
      .map((line) => line.trim().split(/\s+/)[0] ?? "");
  } catch {
    return [];
  }
}

/**
 * The package's Amazon Linux libraries (libnss3, libnspr4, libexpat…), unpacked once into the temp
 * dir: for a machine with nothing but Node and npm, where the system has none of them.
 */
async function bundledLibraries(): Promise<string> {
  const bin = path.join(
    path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")),
    "../../bin",
  );
  const target = path.join(tmpdir(), "sssf-chromium-libs");
  const lib = path.join(target, "lib");
  if (existsSync(lib)) return lib;
  const partial = `${target}.${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const tarFile = path.join(partial, "al2023.tar");
  await pipeline(
    createReadStream(path.join(bin, "al2023.tar.br")),
    createBrotliDecompress(),
    createWriteStream(tarFile),
  );
  execFileSync("tar", ["-xf", tarFile, "-C", partial]);
  rmSync(tarFile);
  try {
    // Renamed into place whole, so a concurrent caller never sees half of it.
    execFileSync("mv", ["-T", partial, target]);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  return lib;
}

/**
 * The browser the UI tests drive: SSSF_CHROMIUM when set (any Chromium, e.g. Debian's
 * /usr/bin/chromium), else the headless Chromium shipped inside the `@sparticuz/chromium` dev
 * dependency (unpacked to the temp dir once, by test/helpers/global-setup.ts; nothing is downloaded),
 * with the package's own copies of the system libraries it needs when the machine lacks them.
 * `--no-sandbox` because CI runs as root.
 */
export async function chromiumBinary(): Promise<ChromiumBinary> {
  const override = process.env.SSSF_CHROMIUM;
  if (override !== undefined && override !== "") return { executablePath: override, args: ["--no-sandbox"] };
  const executablePath = await chromiumPackage.executablePath();
  // Not the package's own Lambda flags: they turn off web security, which the UI's tests rely on.
  const args = ["--no-sandbox"];
  if (missingLibraries(executablePath).length === 0) return { executablePath, args };
  const lib = await bundledLibraries();
  const LD_LIBRARY_PATH = [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  return { executablePath, args, env: { ...(process.env as Record<string, string>), LD_LIBRARY_PATH } };
}
