/**
 * What the fake saw: every model request and every refused egress attempt, in memory and, when a log
 * file is given, appended to it as JSONL in arrival order.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { dirname } from "node:path";
import type { EgressAttempt, LoggedHeaders, LoggedRequest } from "./types.js";

const SECRET_HEADERS = ["x-api-key", "x-goog-api-key", "authorization"] as const;
const PLAIN_HEADERS = ["user-agent", "anthropic-beta", "anthropic-version"] as const;

/** The headers worth keeping, with credentials cut to their first 12 characters. Never throws. */
export function pickHeaders(headers: IncomingHttpHeaders): LoggedHeaders {
  const picked: LoggedHeaders = {};
  for (const name of PLAIN_HEADERS) {
    const value = headers[name];
    if (typeof value === "string") picked[name] = value;
  }
  for (const name of SECRET_HEADERS) {
    const value = headers[name];
    if (typeof value === "string") picked[name] = value.slice(0, 12);
  }
  return picked;
}

/** The in-memory log, mirrored to an optional JSONL file. */
export class RequestLog {
  private readonly requestList: LoggedRequest[] = [];
  private readonly egressList: EgressAttempt[] = [];

  /** Creates the log file's folder and the file itself, so a bad path fails at start. Throws on I/O errors. */
  constructor(private readonly file?: string) {
    if (file) {
      mkdirSync(dirname(file), { recursive: true });
      appendFileSync(file, "");
    }
  }

  /** Records a model request. Never throws (a failing file write is dropped, the memory log keeps it). */
  addRequest(entry: LoggedRequest): void {
    this.requestList.push(entry);
    this.append(entry);
  }

  /** Records a refused egress attempt. Never throws. */
  addEgress(entry: EgressAttempt): void {
    this.egressList.push(entry);
    this.append(entry);
  }

  /** Copies, oldest first. */
  requests(): LoggedRequest[] {
    return [...this.requestList];
  }

  /** Copies, oldest first. */
  egress(): EgressAttempt[] {
    return [...this.egressList];
  }

  /** Empties the memory log; the file keeps its history. */
  clear(): void {
    this.requestList.length = 0;
    this.egressList.length = 0;
  }

  private append(entry: LoggedRequest | EgressAttempt): void {
    if (!this.file) return;
    try {
      appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    } catch {
      // The server must keep answering; the in-memory log still has the entry.
    }
  }
}
