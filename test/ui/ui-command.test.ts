import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTraceStore } from "../../src/trace/open-store.js";
import { DEFAULT_UI_PORT } from "../../src/ui/server/start-server.js";
import { collect, Sandbox } from "../helpers/sandbox.js";
import { startUi } from "./browser-fixture.js";
import { rawRequest } from "./raw-http.js";

let sb: Sandbox;
const servers: Server[] = [];
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  sb.cleanup();
});

async function createTrace(): Promise<string> {
  const dbPath = path.join(sb.dir, "adws/adw_data/sssf.db");
  await (await openTraceStore(dbPath)).close();
  return dbPath;
}

/** Holds `port` on 127.0.0.1 (resolves false when something else already does). */
function hold(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => {
      servers.push(server);
      resolve(true);
    });
  });
}

describe("sssf ui", () => {
  it("names the missing database in one line and exits 2", async () => {
    const result = await sb.run(["ui", "--port", "0"]);
    expect(result.code).toBe(2);
    const expected = path.join(sb.dir, "adws/adw_data/sssf.db");
    expect(result.stderr).toBe(
      `sssf: no trace database at ${expected} (run a workflow first, or pass --db PATH / --config PATH)\n`,
    );
    const explicit = await sb.run(["ui", "--db", "elsewhere.db"]);
    expect(explicit.stderr).toContain(path.join(sb.dir, "elsewhere.db"));
  });

  it("serves on 127.0.0.1, prints the URL and stops cleanly on Ctrl-C", async () => {
    await createTrace();
    const ui = await startUi(sb);
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetch(`${ui.url}api/sessions`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sessions: [], total: 0 });
    // A live stream stays open; Ctrl-C must still end the process.
    const live = await fetch(`${ui.url}api/live`);
    expect(live.headers.get("content-type")).toContain("text/event-stream");
    const result = await ui.stop();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("sssf ui: stopped");
    expect(result.stderr).toBe("");
  });

  it("binds another interface only when asked, with a warning", async () => {
    await createTrace();
    const ui = await startUi(sb, ["--host", "0.0.0.0"]);
    const result = await ui.stop();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("warning: serving on 0.0.0.0");
  });

  it("refuses a taken explicit port and moves past a taken default one", async () => {
    await createTrace();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    servers.push(busy);
    const port = (busy.address() as { port: number }).port;
    const refused = await sb.run(["ui", "--port", String(port)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`port ${port} is in use`);
    expect((await sb.run(["ui", "--port", "http"])).stderr).toContain("--port");

    await hold(DEFAULT_UI_PORT);
    const child = sb.start(["ui"]);
    const exited = collect(child);
    const url = await new Promise<string>((resolve) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /sssf ui: (http:\/\/\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
    });
    child.kill("SIGINT");
    expect((await exited).code).toBe(0);
    const chosen = Number(new URL(url).port);
    expect(chosen).toBeGreaterThan(DEFAULT_UI_PORT);
    expect(chosen).toBeLessThanOrEqual(DEFAULT_UI_PORT + 20);
  });

  it("serves a reverse proxy's name given with --allow-host, and refuses other names", async () => {
    createTrace();
    const help = await sb.run(["ui", "--help"]);
    expect(help.stdout).toContain("--allow-host <name>");
    const bad = await sb.run(["ui", "--allow-host", "https://ui.example.test:8443"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--allow-host: expected a host name such as ui.example.com (no scheme, no port), got "https://ui.example.test:8443"',
    );

    const ui = await startUi(sb, [
      "--host",
      "0.0.0.0",
      "--allow-host",
      "UI.example.test",
      "--allow-host",
      "10.9.8.7",
    ]);
    const port = Number(new URL(ui.url).port);
    const get = (host: string, origin?: string) =>
      rawRequest({
        port,
        path: "/api/sessions",
        headers: [
          ["Host", host],
          ...(origin === undefined ? [] : ([["Origin", origin]] as [string, string][])),
        ],
      });
    // A proxy forwards its own name, with whatever port it listens on.
    expect((await get("ui.example.test")).status).toBe(200);
    expect((await get("ui.example.test:8443")).status).toBe(200);
    expect((await get("10.9.8.7")).status).toBe(200);
    expect((await get("ui.example.test", "https://ui.example.test")).status).toBe(200);
    expect((await get("ui.example.test:443", "https://ui.example.test")).status).toBe(200);
    expect((await get("ui.example.test:8443", "https://ui.example.test")).status).toBe(403);
    expect((await get(`0.0.0.0:${port}`)).status).toBe(200);
    const other = await get("other.example.test");
    expect(other.status).toBe(403);
    expect(other.body).toContain("--allow-host");
    expect((await get("ui.example.test", "https://other.example.test")).status).toBe(403);
    expect((await ui.stop()).code).toBe(0);
  });
});
