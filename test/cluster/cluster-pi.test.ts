import { afterEach, describe, expect, it, vi } from "vitest";
import { envelopeJson } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { asked, PAIR } from "../resume/pi-pair.js";
import { chatMessages, createPiWorld, messageText, type PiWorld, piBinary } from "../runtimes/pi/pi-world.js";
import { ClusterWorld, sharedRestate } from "./cluster-world.js";

// A cluster starts several processes: on a loaded 2-core machine that takes its time.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let cluster: ClusterWorld | undefined;
let pi: PiWorld | undefined;
afterEach(async () => {
  await cluster?.cleanup();
  await pi?.cleanup();
  cluster = undefined;
  pi = undefined;
});

describe("the cluster with real pi against the fake model", () => {
  it("kill -9 of the worker while the second pi agent waits on the model: another worker asks again, the first is not asked again", async () => {
    pi = await createPiWorld({
      steps: [
        { match: { text: "ALPHA" }, reply: envelopeJson({ summary: "alpha done", artifacts: [] }) },
        { match: { text: "BETA" }, hang: true },
        { match: { text: "BETA" }, reply: envelopeJson({ summary: "beta done", artifacts: [] }) },
      ],
    });
    const w = pi;
    cluster = new ClusterWorld({ first: [], second: [], third: [] }, { restate });
    const prompts: Record<string, string> = {};
    for (const name of ["first", "second"]) {
      prompts[`adws/adw_data/prompt_engineering/${name}/system.md`] =
        "You are a test agent. End with the JSON report.\n";
      prompts[`adws/adw_data/prompt_engineering/${name}/user.md`] = "{{prompt}}\n";
    }
    const agents = ["first", "second"].map((name) => ({
      name,
      coding_agent: "pi",
      model: "",
      command: [piBinary],
      env: w.env,
    }));
    cluster.commitAndPush({
      ...prompts,
      "adws/adw_pair.ts": PAIR,
      "adws/adw_sssf_config/sssf.config.yaml": JSON.stringify({ agents }),
    });
    await cluster.start(2);
    const submitted = await cluster.cli(["run", "pair", "go", "--engine", "restate", "--detach"]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const adwId = submitted.stdout.trim();
    await waitFor(() => asked(w, "BETA") === 1, 120_000, "the second agent's model request");
    await (await cluster.workerRunning(adwId)).kill("SIGKILL");
    const c = cluster;
    await waitFor(
      () => c.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1,
      120_000,
      `the run's end\n${c.logs()}`,
    );
    expect(asked(w, "ALPHA")).toBe(1);
    expect(asked(w, "BETA")).toBe(2);
    expect(
      w
        .chats()
        .some((entry) => chatMessages(entry).some((m) => messageText(m).includes("BETA after alpha done"))),
    ).toBe(true);
    expect(cluster.phases(adwId)).toEqual(["one:success+r", "two:interrupted", "two:success"]);
    expect(cluster.query("SELECT id FROM processes WHERE adw_id = ? AND status = 'running'", adwId)).toEqual(
      [],
    );
    expect(w.server.egress()).toEqual([]);
  });
});
