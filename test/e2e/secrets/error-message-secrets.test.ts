import { afterEach, describe, expect, it } from "vitest";
import { Sandbox } from "../../helpers/sandbox.js";

/** Error messages quote what failed: a remote, a database URL. Their passwords never reach the terminal. */
describe("an error message the CLI prints", () => {
  let sb: Sandbox | undefined;
  afterEach(() => sb?.cleanup());

  it("hides the password of a git remote it cannot clone, and keeps the rest of the URL", async () => {
    sb = new Sandbox();
    // Nothing listens on port 1: the clone fails at once and git's message names the remote.
    for (const password of ["plain-pass-word", "glpat-abcdEFGH1234xyz"]) {
      const remote = `https://oauth2:${password}@127.0.0.1:1/org/repo.git`;
      const result = await sb.run([
        "worker",
        "--remote",
        remote,
        "--work-dir",
        `${sb.dir}/work-${password.length}`,
        "--pool",
        "http://127.0.0.1:1",
        "--db",
        `${sb.dir}/trace.db`,
      ]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("https://oauth2:[redacted:url-password]@127.0.0.1:1/org/repo.git");
      expect(result.stderr + result.stdout).not.toContain(password);
    }
  });
});
