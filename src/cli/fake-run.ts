/**
 * `sssf run --fake-script FILE` (and `sssf resume --fake-script FILE`): the run's own fake model server,
 * started before the run and stopped after it. Every agent's env points at it (base URLs and dummy keys, pi's agent dir with its default
 * model, a scratch HOME, the egress trap); a send that tries to reach the network fails its phase, and
 * any egress attempt at all makes the run exit 1. The request log goes to
 * `<data_dir>/fake-model/requests.jsonl` (appended). The script's path is journaled with the run, and
 * `sssf resume` refuses to continue such a run without `--fake-script`.
 */

import path from "node:path";
import type { SendHook } from "../api/send-hook.js";
import type { SssfConfig } from "../config/config-types.js";
import {
  describeEgress,
  type FakeModelRun,
  startFakeModelRun,
} from "../testing/fake-model/fake-model-run.js";
import { loadFakeScript } from "../testing/fake-model/load-fake-script.js";

/** What `sssf run` needs of the fake model: the config to run with, the hook, and the end of it. */
export interface CliFakeRun {
  /** The loaded config with every agent pointed at the fake. */
  config: SssfConfig;
  sendHooks: SendHook[];
  /** The script's absolute path, journaled with the run so `sssf resume` stays offline too. */
  scriptFile: string;
  /**
   * Stops the server, prints what it answered and refused, and returns the run's exit status: `code`,
   * or 1 when it was 0 and an egress attempt was refused. Idempotent on the server.
   */
  finish(code: number): Promise<number>;
  /** Stops the server without a summary (the run threw). Idempotent. */
  close(): Promise<void>;
}

/** Where `--fake-script` runs append the fake model's request log. */
export function fakeRunLogFile(config: SssfConfig): string {
  return path.join(config.dataDir, "fake-model", "requests.jsonl");
}

/**
 * Validates `scriptFile` (exit 2 naming the file and field, or `--fake-script` when it cannot be
 * read), starts the fake and returns `config` pointed at it.
 */
export async function startCliFakeRun(
  scriptFile: string,
  config: SssfConfig,
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<CliFakeRun> {
  const file = path.resolve(scriptFile);
  const script = loadFakeScript(file, "--fake-script");
  const logFile = fakeRunLogFile(config);
  const fake: FakeModelRun = await startFakeModelRun({ script, logFile });
  out.write(`fake model ${fake.server.url} (pi model ${fake.piModel}; log ${logFile})\n`);
  return {
    config: fake.configure(config),
    sendHooks: [fake.egressHook],
    scriptFile: file,
    async finish(code) {
      await fake.close();
      const requests = fake.server
        .requests()
        .filter((entry) => entry.api !== null && entry.status !== null).length;
      const egress = fake.server.egress();
      out.write(
        `fake model answered ${requests} model request(s), refused ${egress.length} egress attempt(s)\n`,
      );
      if (egress.length === 0) return code;
      err.write(
        `sssf: --fake-script: the run tried to reach the network ${egress.length} time(s) (${describeEgress(egress)}); ` +
          "an offline run must not, so it fails\n",
      );
      return code === 0 ? 1 : code;
    },
    close: () => fake.close(),
  };
}
