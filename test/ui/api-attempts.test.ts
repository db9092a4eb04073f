/**
 * The diff a best-of attempt saved, served from its session folder only: the winner's and a loser's
 * diff as written, and refusals for every path the trace may name that leads out of the folder (a
 * `..` escape, an absolute path, a link out, a folder), a missing file, an unknown attempt, phase or
 * session. Never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileText, PhaseDetail } from "../../src/ui/server/api-types.js";
import type { UiApp } from "../../src/ui/server/app.js";
import { BEST, BEST_PHASE, HOSTILE_PHASE, seedBestOf } from "./best-of-seed.js";
import { getJson, TraceWorld } from "./ui-fixtures.js";

let world: TraceWorld;
let ui: UiApp;
beforeAll(async () => {
  world = await TraceWorld.open();
  seedBestOf(world);
  ui = await world.app();
});
afterAll(() => world.cleanup());

const diffUrl = (phase: string, k: number | string, adw = BEST) =>
  `/api/sessions/${adw}/phases/${phase}/attempts/${k}/diff`;

async function refusal(url: string): Promise<{ status: number; error: string }> {
  const response = await ui.app.request(url);
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

describe("an attempt's diff", () => {
  it("serves each attempt's saved diff by number, with its session-relative source", async () => {
    const winner = await getJson<FileText>(ui, diffUrl(BEST_PHASE, 2));
    expect(winner.source).toBe("attempts/01-build-2.diff");
    expect(winner.text).toContain("+attempt two");
    expect(winner.text).toContain("diff --git a/src/util.ts b/src/util.ts");
    const loser = await getJson<FileText>(ui, diffUrl(BEST_PHASE, 1));
    expect(loser.text).toContain("+attempt one");
    expect(loser.text).not.toContain("attempt two");
  });

  it("carries the attempt and best_of events in the phase detail, as the engine wrote them", async () => {
    const detail = await getJson<PhaseDetail>(ui, `/api/sessions/${BEST}/phases/${BEST_PHASE}`);
    const names = detail.events
      .filter((e) => e.type === "attempt" || e.type === "best_of")
      .map((e) => e.name);
    expect(names).toEqual(["attempt 1 of 3", "attempt 2 of 3", "attempt 3 of 3", "winner attempt 2"]);
  });

  it("says a missing diff file is missing (404), never a 500", async () => {
    expect(await refusal(diffUrl(BEST_PHASE, 3))).toEqual({
      status: 404,
      error: `attempt 3's diff "attempts/01-build-3.diff" is missing from the session folder`,
    });
    expect(await refusal(diffUrl(HOSTILE_PHASE, 4))).toEqual({
      status: 404,
      error: `attempt 4's diff "attempts/gone.diff" is missing from the session folder`,
    });
  });

  it("refuses a .. escape, an absolute path, a link out and a folder (403)", async () => {
    const dotdot = await refusal(diffUrl(HOSTILE_PHASE, 1));
    expect(dotdot).toEqual({
      status: 403,
      error: `attempt 1's diff "../../etc/passwd" leads out of the session folder`,
    });
    const absolute = await refusal(diffUrl(HOSTILE_PHASE, 2));
    expect(absolute.status).toBe(403);
    expect(absolute.error).toContain("is an absolute path");
    const link = await refusal(diffUrl(HOSTILE_PHASE, 3));
    expect(link.status).toBe(403);
    expect(link.error).toContain(`"attempts/link-out.diff" is not a file inside the session folder`);
    const folder = await refusal(diffUrl(HOSTILE_PHASE, 5));
    expect(folder.status).toBe(403);
    // Into another session's folder through `..`: still out of this one.
    const sibling = await refusal(diffUrl(HOSTILE_PHASE, 6));
    expect(sibling).toMatchObject({ status: 403 });
    expect(sibling.error).toContain("leads out of the session folder");
    for (const url of [1, 2, 3, 5, 6].map((k) => diffUrl(HOSTILE_PHASE, k))) {
      const body = await (await ui.app.request(url)).text();
      expect(body).not.toContain("root:");
      expect(body).not.toContain("not a diff of this session");
      expect(body).not.toContain("other run");
    }
  });

  it("404s an unknown attempt, phase or session; 400s a malformed attempt or session id", async () => {
    expect(await refusal(diffUrl(BEST_PHASE, 9))).toEqual({
      status: 404,
      error: "no attempt 9 in this phase",
    });
    expect(await refusal(diffUrl("ph_nope_1", 1))).toEqual({
      status: 404,
      error: "no attempt 1 in this phase",
    });
    expect(await refusal(diffUrl(BEST_PHASE, 1, "nosuch01"))).toEqual({
      status: 404,
      error: "no such session: nosuch01",
    });
    expect((await refusal(diffUrl(BEST_PHASE, "..%2F1"))).status).toBe(400);
    expect((await refusal(diffUrl(BEST_PHASE, 0))).status).toBe(400);
    expect((await refusal(diffUrl(BEST_PHASE, "1", "..%2Fx"))).status).toBe(400);
  });
});
