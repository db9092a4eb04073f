import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import type { TraceRecord } from "./events.js";

/** The records of JSON lines as {@link recordBytes} writes them, in one parse. */
export function parseRecordLines(text: string): TraceRecord[] {
  return text === "" ? [] : (JSON.parse(`[${text.slice(0, -1).replaceAll("\n", ",")}]`) as TraceRecord[]);
}

const encoder = new TextEncoder();
const NEWLINE = 0x0a;

/**
 * `records` as JSON lines (`JSON.stringify` of each, then "\n") in UTF-8, each line encoded straight
 * into one buffer: joining a batch's lines into one string and encoding that took ten times as long
 * (measured on batches of 4,000 lines, the copies of a 1.6 MB string), and these bytes are what the
 * file takes.
 */
export function recordBytes(records: readonly TraceRecord[]): Buffer {
  const lines = records.map((record) => JSON.stringify(record));
  // One byte per UTF-16 unit fits ASCII; a line with wider characters grows the buffer as it goes.
  let size = lines.length;
  for (const line of lines) size += line.length;
  let bytes = new Uint8Array(size);
  let used = 0;
  for (let index = 0; index < lines.length; index++) {
    let rest = lines[index] as string;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, bytes.subarray(used));
      used += written;
      if (read === rest.length) break;
      // Whole code points only: the rest starts on one, and takes at most 3 bytes per UTF-16 unit.
      rest = rest.slice(read);
      const grown = new Uint8Array(bytes.length + rest.length * 3);
      grown.set(bytes.subarray(0, used));
      bytes = grown;
    }
    if (used === bytes.length) {
      const grown = new Uint8Array(bytes.length + 1 + (lines.length - index) * 16);
      grown.set(bytes);
      bytes = grown;
    }
    bytes[used++] = NEWLINE;
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, used);
}

/**
 * An append-only `events.jsonl`, kept open (O_APPEND) for the life of a tracer. Each `append` writes
 * one batch of records as JSON lines in a single write.
 * Contract: a line is never split or written twice: when the file takes only part of a batch (or none),
 * the rest is kept and written first by the next `append`, and `append` throws the file system's error.
 */
export class EventsFile {
  readonly path: string;
  #fd: number | null;
  /** Bytes a write left over, and the records and JSON lines they end (all of them, not just the bytes). */
  #unwritten: { bytes: Buffer; records: TraceRecord[]; lines: Buffer } | null = null;

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
   * in order, and their JSON lines as UTF-8 (each ending in "\n"). Throws the write error (those records
   * are then kept for the next call), or SssfError("internal") when closed.
   */
  append(records: TraceRecord[]): { records: TraceRecord[]; lines: Buffer } {
    const fd = this.#requireFd();
    const lines = recordBytes(records);
    if (this.#unwritten !== null) {
      // Bytes an earlier call could not write go first, so lines stay whole and in order.
      const { bytes, lines: earlierLines, records: earlier } = this.#unwritten;
      this.#unwritten = null;
      const all = earlier.concat(records);
      const allLines = Buffer.concat([earlierLines, lines]);
      this.#writeBytes(fd, Buffer.concat([bytes, lines]), all, allLines);
      return { records: all, lines: allLines };
    }
    if (records.length === 0) return { records, lines };
    this.#writeBytes(fd, lines, records, lines);
    return { records, lines };
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

  #writeBytes(fd: number, bytes: Buffer, records: TraceRecord[], lines: Buffer): void {
    let offset = 0;
    try {
      // A failed write(2) has written nothing; a short one is continued from where it stopped.
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    } catch (error) {
      this.#unwritten = { bytes: bytes.subarray(offset), records, lines };
      throw error;
    }
  }
}
