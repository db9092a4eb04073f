/**
 * A boxed send as a macOS Seatbelt profile for `sandbox-exec -p`. Seatbelt cannot move a folder, so
 * the working tree keeps its own path there (no stable paths on macOS). The last matching rule wins:
 * writes are denied, then allowed in the writable folders and the temp folders, then denied again on
 * the read-only paths; reads of credential paths are denied last.
 */

import { realpathSync } from "node:fs";
import type { SendSandbox } from "./send-sandbox.js";

const quote = (text: string) => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** The canonical path where it exists (Seatbelt matches /private/tmp, never /tmp), else the path. */
function canonical(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

const filter = (file: string) => `(subpath ${quote(canonical(file))})`;

export function seatbeltProfile(sandbox: SendSandbox): string {
  const lines = ["(version 1)", "(allow default)", "(deny file-write*)"];
  const writable = [
    ...sandbox.writable.map((entry) => filter(entry.host)),
    filter("/private/tmp"),
    filter("/private/var/folders"),
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/tty")',
    '(regex #"^/dev/fd/")',
  ];
  lines.push(`(allow file-write* ${writable.join(" ")})`);
  if (sandbox.readOnly.length > 0) lines.push(`(deny file-write* ${sandbox.readOnly.map(filter).join(" ")})`);
  if (sandbox.denyRead.length > 0) lines.push(`(deny file-read* ${sandbox.denyRead.map(filter).join(" ")})`);
  if (sandbox.network !== "open")
    lines.push("(deny network-outbound)", "(allow network-outbound (remote unix-socket))");
  return lines.join("\n");
}
