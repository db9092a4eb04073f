import { SssfError } from "./sssf-error.js";

/** Another live process holds this adw_id; joining it now would clobber its trace. */
export class SessionLockedError extends SssfError {
  readonly adwId: string;
  readonly holderPid: number;

  constructor(adwId: string, holderPid: number, lockFile: string) {
    super(
      "session_locked",
      `session ${adwId} is in use by another sssf process (pid ${holderPid}); wait for it to finish or use another --adw-id (lock: ${lockFile})`,
      { exitCode: 2 },
    );
    this.name = "SessionLockedError";
    this.adwId = adwId;
    this.holderPid = holderPid;
  }
}
