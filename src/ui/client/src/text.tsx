import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/**
 * Agent, prompt and tool text, shown exactly as written: always a text node inside <pre>, never HTML,
 * so `<script>`, `<img onerror>` or `javascript:` in it are only characters on the screen.
 */
export function TextBlock({
  text,
  cut,
  className,
}: {
  text: string;
  cut?: number | boolean;
  className?: string;
}) {
  return (
    <div class={`text-block ${className ?? ""}`}>
      <pre>{text}</pre>
      {cut ? <p class="note">Shortened: the trace holds more than is shown here.</p> : null}
    </div>
  );
}

/** A JSON value pretty-printed as text. */
export function JsonBlock({ value, cut }: { value: unknown; cut?: number | boolean }) {
  const text = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
  return <TextBlock text={text} cut={cut} className="json" />;
}

/**
 * A collapsible section, closed by default unless `open`. Its body is rendered the first time it is
 * opened: a phase with hundreds of tool calls stays light until one is looked at.
 */
export function Fold({
  title,
  open,
  children,
}: {
  title: ComponentChildren;
  open?: boolean;
  children: ComponentChildren;
}) {
  const [shown, setShown] = useState(Boolean(open));
  return (
    <details
      class="fold"
      open={open}
      onToggle={(event) => {
        if ((event.currentTarget as HTMLDetailsElement).open) setShown(true);
      }}
    >
      <summary>{title}</summary>
      {shown ? <div class="fold-body">{children}</div> : null}
    </details>
  );
}

/** A status badge: running (pulsing), success, fail. */
export function StatusBadge({ status }: { status: string }) {
  const label = status === "running" ? "live" : status;
  return (
    <span class={`badge badge-${status}`}>
      {status === "running" ? <span class="pulse" /> : null}
      {label}
    </span>
  );
}

/** `1.2 KB`. */
export function sizeOf(text: string): string {
  const bytes = new TextEncoder().encode(text).length;
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
