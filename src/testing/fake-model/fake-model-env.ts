/** The environment that points the five coding-agent CLIs at a fake model server and its egress trap. */

/** Hosts that must bypass the proxy so the CLI reaches the fake directly. */
export const FAKE_NO_PROXY = "127.0.0.1,localhost";

/**
 * Proxy variables (both spellings) routing every stray request into the egress trap, while loopback
 * traffic goes direct. Never throws.
 */
export function fakeProxyEnv(url: string): Record<string, string> {
  return {
    HTTPS_PROXY: url,
    HTTP_PROXY: url,
    NO_PROXY: FAKE_NO_PROXY,
    https_proxy: url,
    http_proxy: url,
    no_proxy: FAKE_NO_PROXY,
  };
}

/**
 * Base URLs and dummy keys the CLIs read from the environment (claude: ANTHROPIC_*, gemini:
 * GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY, OpenAI SDK clients: OPENAI_*). pi, codex and opencode
 * take their base URL from config files instead (see docs/fake-model.md). Never throws.
 */
export function fakeModelEnv(url: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-fake",
    GOOGLE_GEMINI_BASE_URL: url,
    GEMINI_API_KEY: "fake-key",
    OPENAI_BASE_URL: `${url}/v1`,
    OPENAI_API_KEY: "sk-fake",
    ...fakeProxyEnv(url),
  };
}
