/**
 * Keeps pi's stream linear in the reply size. pi's `message_update` events repeat the whole message so
 * far twice (`message` and `assistantMessageEvent.partial`) on every streamed delta, so a 20 KB reply
 * becomes ~13 MB of stdout. Each such line is cut to its delta event before it is stored in
 * raw_output.jsonl and parsed; every other line passes unchanged.
 */

const MESSAGE_UPDATE = '{"type":"message_update"';

/** The line itself, or a `message_update` cut to `{type, assistantMessageEvent}` without `partial`. */
export function compactPiLine(line: string): string {
  if (!line.startsWith(MESSAGE_UPDATE)) return line;
  try {
    const event = JSON.parse(line) as { assistantMessageEvent?: Record<string, unknown> };
    const { partial: _partial, ...delta } = event.assistantMessageEvent ?? {};
    return JSON.stringify({ type: "message_update", assistantMessageEvent: delta });
  } catch {
    return line;
  }
}
