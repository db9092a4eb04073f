import { afterEach, expect, it } from "vitest";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { adwIdFrom, Sandbox } from "../helpers/sandbox.js";
import { buildTestRepo, one, shapeOf } from "./otel-fixture.js";
import { OtlpReceiver } from "./otlp-receiver.js";

// A run traced in PostgreSQL: its live spans, and `sssf db export --otlp` from the shared trace, agree.

describePostgres("sssf db export --otlp from a PostgreSQL trace", () => {
  let pg: TestDatabase | undefined;
  let sb: Sandbox | undefined;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    sb?.cleanup();
    await pg?.drop();
  });

  it("exports the stored run as the spans its live export sent", async () => {
    pg = await createTestDatabase();
    receiver = await OtlpReceiver.start();
    sb = new Sandbox();
    buildTestRepo(sb);
    const env = { SSSF_DB: pg.url, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
    const result = await sb.run(["run", "build-test", "add a slug helper"], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(one(receiver.spans, "sssf.run").attributes["sssf.adw_id"]).toBe(adwId);
    const live = shapeOf(receiver.spans);
    expect(live.length).toBeGreaterThan(5);

    receiver.clear();
    const exported = await sb.run(["db", "export", "--otlp", adwId], env);
    expect(exported.code, exported.stdout + exported.stderr).toBe(0);
    expect(shapeOf(receiver.spans)).toEqual(live);
  }, 120_000);
});
