import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { createFakeModelServer, type FakeModelServer, type LoggedRequest } from "../../src/testing/index.js";
import { decodeAnthropic } from "./decode-replies.js";
import { post, test } from "./fake-model-fixture.js";

/** Sends `CONNECT target` to the fake as a proxy; resolves with the status and the raw socket. */
function connect(fake: FakeModelServer, target: string) {
  return new Promise<{ status: number; socket: import("node:net").Socket }>((resolve, reject) => {
    const request = http.request({ method: "CONNECT", host: "127.0.0.1", port: fake.port, path: target });
    request.on("connect", (response, socket) => resolve({ status: response.statusCode ?? 0, socket }));
    request.on("error", reject);
    request.end();
  });
}

/** A GET with an absolute URI, the way a client sends plain HTTP through HTTP_PROXY. */
function proxiedGet(fake: FakeModelServer, url: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      { method: "GET", host: "127.0.0.1", port: fake.port, path: url },
      (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    request.end();
  });
}

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("egress trap", () => {
  test("refuses and records a CONNECT to a remote host", async ({ fake }) => {
    const { status, socket } = await connect(fake, "example.com:443");
    socket.destroy();
    expect(status).toBe(403);
    expect(fake.egress()).toEqual([
      { kind: "egress", time: expect.any(String), method: "CONNECT", target: "example.com:443" },
    ]);
  });

  test("refuses an absolute-URI request for a remote host, serves one for itself", async ({ fake }) => {
    const remote = await proxiedGet(fake, "http://registry.npmjs.org/@opencode-ai%2fplugin");
    expect(remote.status).toBe(403);
    expect(fake.egress()).toMatchObject([
      { method: "GET", target: "http://registry.npmjs.org/@opencode-ai%2fplugin" },
    ]);
    const local = await proxiedGet(fake, `${fake.url}/v1/models`);
    expect(local.status).toBe(200);
    expect(JSON.parse(local.body).data.map((model: { id: string }) => model.id)).toContain("fake-model");
  });

  test("tunnels a CONNECT to loopback, so a client ignoring NO_PROXY still reaches the fake", async ({
    fake,
  }) => {
    const { status, socket } = await connect(fake, `127.0.0.1:${fake.port}`);
    expect(status).toBe(200);
    const reply = await new Promise<string>((resolve) => {
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
      });
      socket.on("end", () => resolve(text));
      socket.write("GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
    });
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(fake.egress()).toEqual([]);
  });
});

describe("control endpoints", () => {
  test("script, enqueue, log, egress, reset, hang and shutdown", async ({ fake }) => {
    const control = (route: string, body?: unknown) =>
      fetch(`${fake.url}${route}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
    const ask = async () =>
      (
        await decodeAnthropic(
          await post(fake, "/v1/messages", { model: "m", messages: [{ role: "user", content: "hi" }] }),
        )
      ).text;

    expect(await (await control("/__script", { steps: [{ reply: "scripted" }] })).json()).toEqual({
      ok: true,
      steps: 1,
    });
    expect(await (await control("/__enqueue", [{ reply: "queued" }])).json()).toEqual({ ok: true, steps: 2 });
    expect(await ask()).toBe("scripted");
    expect(await ask()).toBe("queued");
    await connect(fake, "api.github.com:443").then(({ socket }) => socket.destroy());

    const log = (await (await control("/__log")).json()) as LoggedRequest[];
    expect(log.map((entry) => entry.step)).toEqual([0, 1]);
    expect(await (await control("/__egress")).json()).toMatchObject([{ target: "api.github.com:443" }]);

    const bad = await control("/__script", { steps: [{ writeFile: { path: "a" } }] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { message: "invalid script: steps[0].writeFile.content: required" },
    });
    expect((await control("/__hang", { on: "yes" })).status).toBe(400);
    expect((await control("/__nope")).status).toBe(404);

    expect(await (await control("/__hang", { on: true })).json()).toEqual({ ok: true, hang: true });
    const held = post(
      fake,
      "/v1/messages",
      { model: "m", messages: [] },
      { signal: AbortSignal.timeout(300) },
    );
    await expect(held).rejects.toThrow();
    expect(await (await control("/__reset", {})).json()).toEqual({ ok: true });
    expect(await (await control("/__log")).json()).toEqual([]);
    expect(await ask()).toBe("scripted");

    expect(await (await control("/__shutdown", {})).json()).toEqual({ ok: true });
    await fake.closed;
    await expect(fetch(`${fake.url}/__log`)).rejects.toThrow();
  });
});

describe("request log file", () => {
  test("appends every request and egress attempt as JSONL", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sssf-fake-model-"));
    const logFile = path.join(dir, "nested/requests.jsonl");
    const fake = await createFakeModelServer({ logFile, script: { steps: [{ reply: "hi" }] } });
    try {
      await post(
        fake,
        "/v1/chat/completions",
        { model: "m", messages: [{ role: "user", content: "TURN-1" }] },
        {
          headers: { authorization: "Bearer sk-fake-abcdefghijklmnop", "user-agent": "pi/0.73.1" },
        },
      );
      await (await fetch(`${fake.url}/nowhere`)).text();
      await connect(fake, "ab.chatgpt.com:443").then(({ socket }) => socket.destroy());
    } finally {
      await fake.close();
    }
    const lines = readFileSync(logFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toMatchObject([
      {
        kind: "request",
        method: "POST",
        path: "/v1/chat/completions",
        headers: { authorization: "Bearer sk-fa", "user-agent": "pi/0.73.1" },
        body: { messages: [{ content: "TURN-1" }] },
        api: "openai-chat",
        step: 0,
        status: 200,
      },
      { kind: "request", method: "GET", path: "/nowhere", api: null, step: null, status: 404 },
      { kind: "egress", method: "CONNECT", target: "ab.chatgpt.com:443" },
    ]);
  });
});
