import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Sandbox } from "../helpers/sandbox.js";
import { piBinary } from "../runtimes/pi/pi-world.js";

/**
 * Makes `sb` a repo whose roster is one pi agent, `helper` (the real binary), with the sandbox's
 * prompts and no model named: a fake run's pi agent dir picks the model.
 */
export function writePiRepo(sb: Sandbox): void {
  const prompts = path.join(sb.dir, "adws/adw_data/prompt_engineering/helper");
  mkdirSync(prompts, { recursive: true });
  writeFileSync(
    path.join(prompts, "system.md"),
    "# helper\n\nDo the task, then reply with the JSON report.\n",
  );
  writeFileSync(path.join(prompts, "user.md"), "# Task\n\n{{prompt}}\n");
  sb.writeConfig({ agents: [{ name: "helper", coding_agent: "pi", command: [piBinary] }] });
}
