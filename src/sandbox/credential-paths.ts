/**
 * Files and folders that hold credentials, relative to the home folder: no agent reads them inside
 * the box (the one credential a runtime needs lives in its own folder, which it may read). The list
 * names what common tools keep secrets in; `sandbox.deny_read` adds to it.
 */

import path from "node:path";

export const CREDENTIAL_PATHS_IN_HOME: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".config/glab-cli",
  ".config/doctl",
  ".config/op",
  ".config/rclone",
  ".config/sops",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".config/git/credentials",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".terraform.d/credentials.tfrc.json",
  ".vault-token",
  ".password-store",
  ".local/share/keyrings",
  ".oci",
  ".boto",
  ".s3cfg",
  ".databrickscfg",
  ".config/heroku",
  ".heroku",
  ".fly",
  ".config/netlify",
  ".vercel",
  ".wrangler",
  ".mozilla",
  ".config/google-chrome",
  ".config/chromium",
];

/** The credential paths of `home`, absolute. */
export function credentialPaths(home: string): string[] {
  return CREDENTIAL_PATHS_IN_HOME.map((entry) => path.join(home, entry));
}
