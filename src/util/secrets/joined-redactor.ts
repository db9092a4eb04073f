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

const WHITESPACE = /\s/;

/** A piece whose last character is not whitespace may end inside a secret the next piece finishes. */
function endsOpen(text: string): boolean {
  return text !== "" && !WHITESPACE.test(text[text.length - 1] as string);
}

/**
 * Redacts consecutive pieces of one stream (the tool outputs of one agent send) as if they were one text,
 * so a secret split across two pieces is redacted in both. Each piece is redacted alone (`redactSecrets`),
 * and the last `JOIN_CARRY_CHARS` of a piece are scanned together with the first of the next: a secret
 * across the boundary is replaced on both sides. A piece that ends in whitespace is handed on at once (no
 * secret continues past a line's end but a private key block, whose halves the rules catch alone);
 * one that does not is held until the next piece or `flush()`. Never throws (an `emit` that throws
 * is its caller's).
 * @example
 * const joined = new JoinedRedactor();
 * joined.push(result1, (text) => store(text)); joined.push(result2, (text) => store(text)); joined.flush();
 */
export class JoinedRedactor {
  #held: Piece | null = null;
  readonly #carry: number;

  constructor(carry: number = JOIN_CARRY_CHARS) {
    this.#carry = carry;
  }

  /** Redacts `text` (now, or once the next piece shows where it ends) and hands it to `emit`. */
  push(text: string, emit: (redacted: string) => void): void {
    const piece: Piece = { text, across: [], emit };
    const held = this.#held;
    if (held !== null) {
      this.#held = null;
      const tail = held.text.slice(-this.#carry);
      const boundary = tail.length;
      const offset = held.text.length - boundary;
      for (const span of findSecretSpans(tail + text.slice(0, this.#carry))) {
        if (span.start < boundary && span.end > boundary) {
          held.across.push({ start: offset + span.start, end: held.text.length, rule: span.rule });
          piece.across.push({ start: 0, end: span.end - boundary, rule: span.rule });
        }
      }
      release(held);
    }
    if (endsOpen(text)) this.#held = piece;
    else release(piece);
  }

  /** Hands on the piece still held (the stream ended). */
  flush(): void {
    const held = this.#held;
    this.#held = null;
    if (held !== null) release(held);
  }
}

function release(piece: Piece): void {
  piece.emit(renderRedacted(piece.text, [...findSecretSpans(piece.text), ...piece.across]));
}
