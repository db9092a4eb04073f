import type { TraceRecord } from "./events.js";
import { redactSecrets } from "./redact.js";
import { redactJsonText } from "./redact-json.js";

function redactText<V>(value: V): V {
  return (typeof value === "string" ? redactSecrets(value) : value) as V;
}

/**
 * A copy of `record` (the row copied too, so later changes by the caller do not leak in) with secrets
 * redacted from the free-text fields: event `name` and `payload` (kept valid JSON), process `command` and
 * `stderr_tail`, envelope `raw_text`. Contract: never throws; never mutates `record`.
 */
export function redactRecord(record: TraceRecord): TraceRecord {
  switch (record.table) {
    case "events": {
      const row = { ...record.row };
      row.name = redactText(row.name);
      if (typeof row.payload === "string") row.payload = redactJsonText(row.payload);
      return { table: "events", row };
    }
    case "processes": {
      const row = { ...record.row };
      row.command = redactText(row.command);
      row.stderr_tail = redactText(row.stderr_tail);
      return { table: "processes", row };
    }
    case "envelopes": {
      const row = { ...record.row };
      row.raw_text = redactText(row.raw_text);
      return { table: "envelopes", row };
    }
    default:
      return { table: record.table, row: { ...record.row } } as TraceRecord;
  }
}
