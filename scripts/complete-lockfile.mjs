// Adds lockfile entries for optional platform binaries the package registry reachable here does not
// serve (other operating systems' builds of opencode, for example). Without them `npm ci` refuses the
// lockfile as out of sync. Each entry carries its os/cpu, so npm skips it on this platform and fetches
// it by version on the platform it is for. Run after `npm install` changes package-lock.json.
import { readFileSync, writeFileSync } from "node:fs";

const OS = { darwin: "darwin", linux: "linux", windows: "win32", win32: "win32" };
const CPU = ["arm64", "x64"];

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const added = [];
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || lock.packages[`${location}/node_modules/${name}`]) continue;
    const parts = name.split("-");
    const os = parts.map((p) => OS[p]).find(Boolean);
    const cpu = parts.find((p) => CPU.includes(p));
    if (!os || !cpu || !/^\d+\.\d+\.\d+$/.test(range)) {
      console.error(`cannot complete ${name}@${range} (needed by ${location}): not a pinned platform binary`);
      process.exitCode = 1;
      continue;
    }
    const libc = parts.includes("musl") ? { libc: ["musl"] } : os === "linux" ? { libc: ["glibc"] } : {};
    lock.packages[key] = { version: range, optional: true, os: [os], cpu: [cpu], ...libc };
    added.push(`${name}@${range} (${os}/${cpu})`);
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length ? `added ${added.length} entries:\n  ${added.join("\n  ")}` : "lockfile already complete",
);
