import { afterEach, describe, expect, it } from "vitest";
import { opencodeRuntime } from "../../../src/runtimes/opencode/index.js";
import { recordingObserver } from "../cli-harness.js";
import { createOpencodeWorld, type OpencodeWorld } from "./opencode-world.js";

let world: OpencodeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("opencode runtime failures", () => {
  it("reports an API error from opencode's event stream", async () => {
    world = await createOpencodeWorld({
      steps: [{ match: { text: "TURN-1" }, error: { status: 401, message: "bad key TEST" }, repeat: true }],
    });
    const result = await opencodeRuntime.send(world.request({ prompt: "TURN-1 hello" }), recordingObserver());
    expect(result).toMatchObject({ ok: false, errorKind: "agent_error", text: "" });
    expect(result.error).toContain("APIError: bad key TEST (HTTP 401)");
    // The session was created before the error, so the next send can continue it.
    expect(result.nativeSessionId).toMatch(/^ses_/);
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  it("fails a resume of a session opencode does not have instead of starting afresh", async () => {
    world = await createOpencodeWorld();
    const result = await opencodeRuntime.send(
      world.request({ prompt: "TURN-2 again", resume: true, nativeSessionId: "ses_doesnotexist123" }),
      recordingObserver(),
    );
    expect(result).toMatchObject({ ok: false, errorKind: "exit_nonzero", exitCode: 1 });
    expect(result.error).toContain("Session not found");
    expect(world.chats()).toEqual([]);
  }, 180_000);
});
