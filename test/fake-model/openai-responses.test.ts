import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect } from "vitest";
import { CODEX_TOOLS, CODEX_TOOLS_NO_SHELL, codexInput, PI_RESPONSES_TOOLS } from "./cli-requests.js";
import { decodeResponses } from "./decode-replies.js";
import { post, readSseJson, test } from "./fake-model-fixture.js";

const PATH = "/v1/responses";

/** A codex-style request: developer and environment items first, tools, streaming. */
function responsesBody(input: unknown[], options: { stream?: boolean; tools?: unknown[] } = {}) {
  return {
    model: "gpt-5.5",
    instructions: "",
    input,
    tools: options.tools ?? CODEX_TOOLS,
    tool_choice: "auto",
    parallel_tool_calls: false,
    stream: options.stream ?? true,
    store: false,
  };
}

describe("OpenAI responses", () => {
  test("streams response.created … response.completed with text deltas", async ({ fake }) => {
    fake.setScript({
      steps: [{ reply: "hello from the fake responses api", usage: { input: 50, output: 8, cacheRead: 10 } }],
    });
    const events = await readSseJson(await post(fake, PATH, responsesBody(codexInput("TURN-1 hi"))));
    const types = events.map((event) => event.type);
    expect(types.slice(0, 5)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const completed = events.at(-1)?.response;
    expect(completed).toMatchObject({
      status: "completed",
      usage: {
        input_tokens: 60,
        input_tokens_details: { cached_tokens: 10 },
        output_tokens: 8,
        total_tokens: 68,
      },
    });
    const text = events
      .filter((event) => event.type === "response.output_text.delta")
      .map((event) => event.delta);
    expect(text.join("")).toBe("hello from the fake responses api");
  });

  test("answers without streaming", async ({ fake }) => {
    fake.setScript({ steps: [{ reply: "plain" }] });
    const response = await post(
      fake,
      PATH,
      responsesBody([{ role: "user", content: "hi" }], { stream: false }),
    );
    const body = await response.clone().json();
    expect(body).toMatchObject({
      object: "response",
      status: "completed",
      output: [{ type: "message", role: "assistant" }],
    });
    expect(await decodeResponses(response)).toMatchObject({
      text: "plain",
      toolCalls: [],
      usage: { output_tokens: 2 },
    });
  });

  test("a function call, then the final text after function_call_output", async ({ fake }) => {
    fake.setScript({
      steps: [
        {
          match: { text: "TURN-1", afterToolResult: false },
          tool: { name: "exec_command", args: { cmd: "ls" } },
        },
        { match: { afterToolResult: true }, reply: "listed" },
      ],
    });
    const first = codexInput("TURN-1 list files");
    const call = await decodeResponses(await post(fake, PATH, responsesBody(first)));
    expect(call.toolCalls).toMatchObject([
      { type: "function_call", name: "exec_command", args: { cmd: "ls" } },
    ]);
    const callId = call.toolCalls[0]?.id;
    const second = [
      ...first,
      { type: "function_call", call_id: callId, name: "exec_command", arguments: '{"cmd":"ls"}' },
      { type: "function_call_output", call_id: callId, output: "a.txt\n" },
    ];
    expect(await decodeResponses(await post(fake, PATH, responsesBody(second)))).toMatchObject({
      text: "listed",
    });
  });

  test("a freeform apply_patch call, then custom_tool_call_output ends the turn", async ({ fake }) => {
    const patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n";
    fake.setScript({
      steps: [{ match: { afterToolResult: false }, tool: { name: "apply_patch", args: { input: patch } } }],
    });
    const first = codexInput("TURN-1 patch");
    const call = await decodeResponses(await post(fake, PATH, responsesBody(first)));
    expect(call.toolCalls).toMatchObject([{ type: "custom_tool_call", name: "apply_patch", input: patch }]);
    const callId = call.toolCalls[0]?.id;
    const second = [
      ...first,
      { type: "custom_tool_call", call_id: callId, name: "apply_patch", input: patch },
      { type: "custom_tool_call_output", call_id: callId, output: "Success" },
    ];
    const final = await decodeResponses(await post(fake, PATH, responsesBody(second, { stream: false })));
    expect(final.text).toBe("fake model: tool result received; done.");
  });

  test("writeFile picks exec_command, apply_patch without a shell, and pi's write", async ({ fake }) => {
    fake.setScript({ steps: [{ writeFile: { path: "dir/it's.txt", content: "50% done\n" }, repeat: true }] });
    const codex = await decodeResponses(await post(fake, PATH, responsesBody(codexInput("w"))));
    expect(codex.toolCalls).toMatchObject([
      {
        type: "function_call",
        name: "exec_command",
        args: { cmd: "mkdir -p 'dir' && printf '%s' '50% done\n' > 'dir/it'\\''s.txt'" },
      },
    ]);
    // The command really writes the bytes, quotes and percent signs included.
    const dir = mkdtempSync(path.join(tmpdir(), "sssf-fake-write-"));
    try {
      execFileSync("sh", ["-c", String(codex.toolCalls[0]?.args?.cmd)], { cwd: dir });
      expect(readFileSync(path.join(dir, "dir/it's.txt"), "utf8")).toBe("50% done\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const noShell = await decodeResponses(
      await post(fake, PATH, responsesBody(codexInput("w"), { tools: CODEX_TOOLS_NO_SHELL })),
    );
    expect(noShell.toolCalls).toMatchObject([
      {
        type: "custom_tool_call",
        name: "apply_patch",
        input: "*** Begin Patch\n*** Add File: dir/it's.txt\n+50% done\n*** End Patch\n",
      },
    ]);
    const pi = await decodeResponses(
      await post(fake, PATH, responsesBody(codexInput("w"), { tools: PI_RESPONSES_TOOLS })),
    );
    expect(pi.toolCalls).toMatchObject([
      { name: "write", args: { path: "dir/it's.txt", content: "50% done\n" } },
    ]);
  });

  test("markers echo across two turns; the environment context counts as user text", async ({ fake }) => {
    const first = codexInput("TURN-1 hello");
    const one = JSON.parse((await decodeResponses(await post(fake, PATH, responsesBody(first)))).text);
    expect(one).toMatchObject({
      api: "openai-responses",
      markers: ["TURN-1"],
      n_user: 2,
      last_user: "TURN-1 hello",
    });
    const second = [
      ...first,
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "TURN-2 again" }] },
    ];
    const two = JSON.parse((await decodeResponses(await post(fake, PATH, responsesBody(second)))).text);
    expect(two).toMatchObject({ markers: ["TURN-1", "TURN-2"], n_user: 3, after_tool: false });
  });

  test("an error step answers with its status and message", async ({ fake }) => {
    fake.setScript({ steps: [{ error: { status: 400, message: "bad thing TEST" } }] });
    const response = await post(fake, PATH, responsesBody(codexInput("hi")));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { message: "bad thing TEST", type: "invalid_request_error" },
    });
  });
});
