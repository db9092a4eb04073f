/**
 * What a runtime and the spawn loop know of the OS sandbox one send runs in. The engine decides
 * whether a send is boxed (src/sandbox/ resolves the policy); a runtime only reads `backend` (to make
 * its CLI's own sandbox defer to the box) and passes the request through.
 */

/** How sssf boxes an agent: Linux bubblewrap, macOS Seatbelt (`sandbox-exec`). */
export type SandboxBackend = "bwrap" | "seatbelt";

/** The box around one send's processes: every path rule is already absolute and resolved. */
export interface SendSandbox {
  backend: SandboxBackend;
  /** Absolute path of the sandbox program (`bwrap`, `sandbox-exec`). */
  program: string;
  /** The run's working tree on the host; `AgentSendRequest.cwd` is its path inside the box. */
  hostCwd: string;
  /**
   * Host folders the agent may write, each with the path it has inside the box (the same path, except
   * the working tree and `context_handoff/`, which appear at paths stable across runs).
   */
  writable: { host: string; box: string }[];
  /** Paths under a writable folder that stay read-only (the git dir, the `.git` file). */
  readOnly: string[];
  /** Paths the agent may not read at all (credential files and folders). */
  denyRead: string[];
  /** `open`: the host's network; a list: only these hosts (where the backend can enforce it). */
  network: "open" | string[];
}
