import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import type { TraceRecord } from "./events.js";

/**
 * An append-only `events.jsonl`, kept open (O_APPEND) for the life of a tracer. Each `append` writes
 * one batch of records as JSON lines in a single write.
 * Contract: a line is never split or written twice: when the file takes only part of a batch (or none),
 * the rest is kept and written first by the next `append`, and `append` throws the file system's error.
 */
/** `records` as the JSON lines `events.jsonl` holds, each ending in "\n" ("" for none). */
export function recordLines(records: readonly TraceRecord[]): string {
  const lines = records.map((record) => JSON.stringify(record));
  lines.push("");
  return lines.join("\n");
}

/** The records of JSON lines as {@link recordLines} writes them, in one parse. */
export function parseRecordLines(text: string): TraceRecord[] {
  return text === "" ? [] : (JSON.parse(`[${text.slice(0, -1).replaceAll("\n", ",")}]`) as TraceRecord[]);
}

export class EventsFile {
  readonly path: string;
  #fd: number | null;
  /** Bytes a write left over, and the records and JSON lines they end (all of them, not just the bytes). */
  #unwritten: { bytes: Buffer; records: TraceRecord[]; text: string } | null = null;

  /** Opens `filePath` for appending, creating it and its directory when missing. Throws fs errors. */
  constructor(filePath: string) {
    this.path = filePath;
    mkdirSync(path.dirname(path.resolve(filePath)), { recursive: true });
    this.#fd = openSync(filePath, "a");
  }

  /** False once closed. */
  get isOpen(): boolean {
    return this.#fd !== null;
  }

  /**
   * Appends the bytes an earlier call could not write, then `records`; returns the records now in the file,
   * in order, and their JSON lines (each ending in "\n"). Throws the write error (those records are then
   * kept for the next call), or SssfError("internal") when closed.
   */
  append(records: TraceRecord[]): { records: TraceRecord[]; text: string } {
    const fd = this.#requireFd();
    const text = recordLines(records);
    if (this.#unwritten !== null) {
      // Bytes an earlier call could not write go first, so lines stay whole and in order.
      const { bytes, text: earlierText, records: earlier } = this.#unwritten;
      this.#unwritten = null;
      const all = earlier.concat(records);
      const allText = earlierText + text;
      this.#writeBytes(fd, Buffer.concat([bytes, Buffer.from(text)]), all, allText);
      return { records: all, text: allText };
    }
    if (records.length === 0) return { records, text: "" };
    let written: number;
    try {
      // A string write skips an intermediate Buffer; a failed write(2) has written nothing.
      written = writeSync(fd, text);
    } catch (error) {
      this.#unwritten = { bytes: Buffer.from(text), records, text };
      throw error;
    }
    if (written < Buffer.byteLength(text))
      this.#writeBytes(fd, Buffer.from(text).subarray(written), records, text);
    return { records, text };
  }

  /** Closes the file; idempotent. Bytes still unwritten are dropped (the caller reports that failure). */
  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }

  #requireFd(): number {
    if (this.#fd === null) throw new SssfError("internal", `Events file ${this.path} is closed.`);
    return this.#fd;
  }

  #writeBytes(fd: number, bytes: Buffer, records: TraceRecord[], text: string): void {
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    } catch (error) {
      this.#unwritten = { bytes: bytes.subarray(offset), records, text };
      throw error;
    }
  }
}
