import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";
import { runHelpAfter } from "../help-text.js";

/** `sssf run <workflow> <prompt>`. */
export const runSpec: CommandSpec = {
  names: ["run"],
  register(program) {
    program
      .command("run")
      .description("run a workflow on a request")
      .argument("<workflow>", "workflow name (sssf run prompt …)")
      .argument("<prompt>", "the request, or a path to a file holding it")
      .option("--agent <name>", "agent to use for workflows that take one (prompt)")
      .option("--adw-id <id>", "join an existing session (agents resume) or name a new one")
      .option(
        "--in-place",
        "work in the checkout itself instead of a worktree on branch sssf/<workflow>/<adw_id>",
      )
      .option("--base <ref>", "commit-ish the run's branch starts from (default HEAD)")
      .option(
        "--carry-dirty",
        "bring the checkout's uncommitted changes (modified, staged, deleted, untracked) into the new worktree, as a commit of sssf's own before the first phase",
      )
      .option("--merge", "fast-forward the base branch to the run's branch when the run is accepted")
      .option("--yes", "approve every question the workflow asks the engineer instead of waiting")
      .option(
        "--fake-script <file>",
        "run offline against a fake model server playing this script (every agent pointed at it; egress fails the run)",
      )
      .option(
        "--engine <engine>",
        "where the run executes: local (this process, the default) or restate (a worker of the cluster, docs/cluster.md)",
      )
      .option(
        "--ingress <url>",
        "--engine restate: Restate's ingress (default $SSSF_RESTATE_INGRESS, then engine.restate.ingress)",
      )
      .option("--detach", "--engine restate: print the run's adw_id once submitted, instead of following it")
      .option(
        "--json",
        "print one JSON summary on stdout at the end (errors too); progress goes to stderr (docs/json-output.md)",
      )
      .addOption(configOption())
      .addOption(cwdOption())
      .addHelpText("after", () => runHelpAfter())
      .action(async (workflow: string, prompt: string, options) => {
        const engine = (options as { engine?: string }).engine ?? "local";
        if (engine === "restate") {
          const { clusterRunCommand } = await import("../cluster/cluster-run-command.js");
          process.exitCode = await clusterRunCommand(workflow, prompt, options);
          return;
        }
        const { runCommand } = await import("./run-command.js");
        process.exitCode = await runCommand(workflow, prompt, { ...options, engine });
      });
  },
};
