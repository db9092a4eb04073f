import { randomBytes } from "node:crypto";
import { UsageError } from "../errors/usage-error.js";

/** What `--adw-id` accepts (a folder and branch name); the cluster's wire takes the same. */
export const ADW_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A fresh adw_id: 8 lowercase hex characters. */
export function mintAdwId(): string {
  return randomBytes(4).toString("hex");
}

/** Validates a user-given `--adw-id`; it becomes a directory name, so it must be a plain token. */
export function checkAdwId(value: string): string {
  if (!ADW_ID_PATTERN.test(value)) {
    throw new UsageError(
      `--adw-id: "${value}" is not a valid id (letters, digits, "-" or "_", at most 64 characters; minted ids are 8 hex characters)`,
      "--adw-id",
    );
  }
  return value;
}
