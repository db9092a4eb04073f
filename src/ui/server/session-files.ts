import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { redactSecrets } from "../../util/secrets/redact.js";
import { FILE_TEXT_LIMIT, type FileText } from "./api-types.js";

// Session ids become folder names; anything else never reaches the file system.
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `text` cut to `limit` characters (at a line end when one is near), with how long it was. */
export function boundText(text: string, source: string, limit = FILE_TEXT_LIMIT): FileText {
  if (text.length <= limit) return { text, cut: 0, total_chars: text.length, source };
  const head = text.slice(0, limit);
  const lineEnd = head.lastIndexOf("\n");
  const cutAt = lineEnd > limit * 0.9 ? lineEnd + 1 : limit;
  return { text: head.slice(0, cutAt), cut: 1, total_chars: text.length, source };
}

/** The real path of the session directory `<sessionsDir>/<adwId>`, or null (unsafe id, missing). */
export function sessionRoot(sessionsDir: string, adwId: string): string | null {
  if (!SAFE_ID.test(adwId)) return null;
  try {
    const sessions = realpathSync(sessionsDir);
    const root = realpathSync(path.join(sessions, adwId));
    return root.startsWith(sessions + path.sep) ? root : null;
  } catch {
    return null;
  }
}

/**
 * The real path of `file` when it is a regular file inside the session directory `root` (after
 * symlinks are followed), else null. A relative `file` is taken from `root`. When an absolute path
 * points elsewhere (the sessions folder was moved) the same name under `root/<fallbackDir>` is tried.
 * Never throws.
 */
export function fileInside(root: string, file: string, fallbackDir?: string): string | null {
  const candidates = [path.resolve(root, file)];
  if (fallbackDir !== undefined) candidates.push(path.join(root, fallbackDir, path.basename(file)));
  for (const candidate of candidates) {
    try {
      const real = realpathSync(candidate);
      if (real.startsWith(root + path.sep) && statSync(real).isFile()) return real;
    } catch {
      // Missing or unreadable: try the next one.
    }
  }
  return null;
}

/**
 * Reads the first `limit` characters of a file inside the session directory, secrets redacted
 * (`redactSecrets`), as a {@link FileText} whose source is the path relative to `root`. Throws what
 * the file system throws.
 */
export function readSessionFile(root: string, real: string, limit = FILE_TEXT_LIMIT): FileText {
  const fd = openSync(real, "r");
  try {
    const size = statSync(real).size;
    // Four bytes per character at most; read a little more than the limit so redaction sees whole secrets.
    const buffer = Buffer.alloc(Math.min(size, limit * 4 + 4096));
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const text = redactSecrets(buffer.subarray(0, length).toString("utf8"));
    const bounded = boundText(text, path.relative(root, real), limit);
    if (length < size && bounded.cut === 0) {
      return { ...bounded, cut: 1, total_chars: Math.max(bounded.total_chars, size) };
    }
    return length < size ? { ...bounded, total_chars: Math.max(bounded.total_chars, size) } : bounded;
  } finally {
    closeSync(fd);
  }
}
