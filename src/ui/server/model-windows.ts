// Context windows (tokens) of model families sssf's runtimes commonly drive, matched against the
// model id with any provider prefix (`anthropic/claude-sonnet-4-5`, `openai/gpt-5`). First match wins,
// so more specific patterns come first. A model not listed has no known window: the UI then shows
// the occupancy alone rather than guess a ratio.
const WINDOWS: readonly (readonly [RegExp, number])[] = [
  [/claude-(?:opus|sonnet|haiku)|claude-3/, 200_000],
  [/gpt-5/, 400_000],
  [/gpt-4\.1/, 1_047_576],
  [/gpt-4o|gpt-4-turbo/, 128_000],
  [/\bo[34](?:-mini|-pro)?\b/, 200_000],
  [/codex-mini/, 200_000],
  [/gemini-(?:2\.5|2\.0|1\.5)-(?:pro|flash)/, 1_048_576],
  [/gemini-3/, 1_048_576],
];

/**
 * The context window of `model` in tokens, or null when sssf does not know it.
 * Never throws.
 * @example
 * contextWindowFor("anthropic/claude-sonnet-4-5") // 200000
 */
export function contextWindowFor(model: string | null | undefined): number | null {
  if (!model) return null;
  const id = model.toLowerCase();
  for (const [pattern, window] of WINDOWS) if (pattern.test(id)) return window;
  return null;
}
