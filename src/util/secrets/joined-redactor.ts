import { findSecretSpans, renderRedacted, type SecretSpan } from "./redact.js";

/**
 * Characters of each side of a boundary scanned together: the longest secret that can lie across it
 * (a 4096-bit RSA key block is about 3.3 KB; longer blocks cut in two are caught by their halves).
 */
export const JOIN_CARRY_CHARS = 8192;

interface Piece {
  text: string;
  /** Parts found only across a boundary with a neighbour. */
  across: SecretSpan[];
  emit(redacted: string): void;
}

/** The run of token characters a piece ends with (the start of a secret the next piece may finish). */
const OPEN_TAIL = /[A-Za-z0-9+/=_.~-]+$/;

/**
 * A piece may end inside a secret the next piece finishes when it ends with a run of 8 or more token
 * characters (a secret's first part). Only such a piece is held; every other piece (`no match`, a line
 * ending in a newline) is handed on at once, so the live view does not wait on the next tool call for
 * it. A secret split after fewer characters keeps those few (at most 7) in the earlier piece; the rest
 * is redacted in the next.
 */
function endsOpen(text: string): boolean {
  const tail = OPEN_TAIL.exec(text.slice(-64))?.[0] ?? "";
  return tail.length >= 8;
}

/**
 * Redacts consecutive pieces of one stream (the tool outputs of one agent send) as if they were one text,
 * so a secret split across two pieces is redacted in both. Each piece is redacted alone (`redactSecrets`),
 * and the last `JOIN_CARRY_CHARS` of a piece are scanned together with the first of the next: a secret
 * across the boundary is replaced on both sides. A piece that ends inside what could be a secret's first
 * part (see `endsOpen`) is held until the next piece or `flush()`; every other is handed on at once (no
 * secret continues past a line's end but a private key block, whose halves the rules catch alone).
 * Never throws (an `emit` that throws is its caller's).
 * @example
 * const joined = new JoinedRedactor();
 * joined.push(result1, (text) => store(text)); joined.push(result2, (text) => store(text)); joined.flush();
 */
export class JoinedRedactor {
  #held: Piece | null = null;
  /** The end of the last piece handed on at once: a secret it began is still redacted in the next. */
  #lastTail = "";
  readonly #carry: number;

  constructor(carry: number = JOIN_CARRY_CHARS) {
    this.#carry = carry;
  }

  /** Redacts `text` (now, or once the next piece shows where it ends) and hands it to `emit`. */
  push(text: string, emit: (redacted: string) => void): void {
    const piece: Piece = { text, across: [], emit };
    const held = this.#held;
    const before = held === null ? this.#lastTail : held.text.slice(-this.#carry);
    const boundary = before.length;
    if (boundary > 0) {
      const offset = held === null ? 0 : held.text.length - boundary;
      for (const span of findSecretSpans(before + text.slice(0, this.#carry))) {
        if (span.start < boundary && span.end > boundary) {
          held?.across.push({ start: offset + span.start, end: held.text.length, rule: span.rule });
          piece.across.push({ start: 0, end: span.end - boundary, rule: span.rule });
        }
      }
    }
    if (held !== null) {
      this.#held = null;
      release(held);
    }
    if (endsOpen(text)) {
      this.#held = piece;
      this.#lastTail = "";
    } else {
      release(piece);
      this.#lastTail = text.slice(-this.#carry);
    }
  }

  /** Hands on the piece still held (the stream ended). */
  flush(): void {
    const held = this.#held;
    this.#held = null;
    this.#lastTail = "";
    if (held !== null) release(held);
  }
}

function release(piece: Piece): void {
  piece.emit(renderRedacted(piece.text, [...findSecretSpans(piece.text), ...piece.across]));
}
