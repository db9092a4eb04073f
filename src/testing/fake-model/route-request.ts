/** Which wire API a request belongs to, by method and path suffix (any prefix such as `/v1` works). */

import type { WireApi } from "./wire-api.js";
import { anthropicMessages } from "./wires/anthropic-messages.js";
import { gemini, geminiTarget } from "./wires/gemini.js";
import { openAiChat } from "./wires/openai-chat.js";
import { openAiResponses } from "./wires/openai-responses.js";

/** Where a request goes: a generation, a token count, the model list, or nowhere. */
export type Route =
  | { kind: "generate"; api: WireApi }
  | { kind: "count"; api: WireApi }
  | { kind: "models" }
  | { kind: "unknown" };

/** Routes `method` + `pathname` (no query). Never throws. */
export function routeRequest(method: string | undefined, pathname: string): Route {
  const path = pathname.replace(/\/+$/, "");
  if (method === "GET") return path.endsWith("/models") ? { kind: "models" } : { kind: "unknown" };
  if (method !== "POST") return { kind: "unknown" };
  if (path.endsWith("/chat/completions")) return { kind: "generate", api: openAiChat };
  if (path.endsWith("/responses")) return { kind: "generate", api: openAiResponses };
  if (path.endsWith("/messages/count_tokens")) return { kind: "count", api: anthropicMessages };
  if (path.endsWith("/messages")) return { kind: "generate", api: anthropicMessages };
  const target = geminiTarget(path);
  if (target?.method === "streamGenerateContent" || target?.method === "generateContent")
    return { kind: "generate", api: gemini };
  if (target?.method === "countTokens") return { kind: "count", api: gemini };
  return { kind: "unknown" };
}

/** The model ids `GET …/models` lists. */
export const FAKE_MODEL_IDS = ["fake-model", "claude-fake", "gpt-5-fake", "gemini-fake"] as const;

/**
 * A small model list every client can read: OpenAI (`object`, `data[].id`), Anthropic (`data[].type`,
 * `has_more`) and Gemini (`models[].name`) fields side by side. Never throws.
 */
export function modelList(): Record<string, unknown> {
  const created = 1_700_000_000;
  return {
    object: "list",
    data: FAKE_MODEL_IDS.map((id) => ({
      id,
      object: "model",
      type: "model",
      display_name: id,
      created,
      created_at: new Date(created * 1000).toISOString(),
      owned_by: "sssf",
    })),
    has_more: false,
    first_id: FAKE_MODEL_IDS[0],
    last_id: FAKE_MODEL_IDS[FAKE_MODEL_IDS.length - 1],
    models: FAKE_MODEL_IDS.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
    })),
  };
}
