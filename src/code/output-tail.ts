/**
 * Keeps the last `limit` bytes of a byte stream without holding the rest: chunks are dropped from the
 * front once the bytes after them already fill the limit.
 */
export class OutputTail {
  private readonly limit: number;
  private chunks: Buffer[] = [];
  private size = 0;
  private total = 0;

  constructor(limit: number) {
    this.limit = Math.max(0, Math.floor(limit));
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.limit === 0 || chunk.length === 0) return;
    const kept = chunk.length > this.limit ? chunk.subarray(chunk.length - this.limit) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  /** True when bytes before the tail were dropped: its first line may be the end of a longer one. */
  get cut(): boolean {
    return this.total > this.limit;
  }

  /** The kept bytes as UTF-8; a character cut at the front is dropped rather than shown as garbage. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    const bytes = all.length > this.limit ? all.subarray(all.length - this.limit) : all;
    let start = 0;
    // Skip UTF-8 continuation bytes (10xxxxxx) left over from a character cut in half.
    while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    return bytes.subarray(start).toString("utf8");
  }
}
