/**
 * A reader for the data-only JavaScript object literals a minifier emits (`{id:"x",open:!0,n:1.5}`):
 * opencode ships its models.dev snapshot that way inside its binary. It reads data, never runs code.
 */

/** Why a literal could not be read, with the offset where reading stopped. */
export class LiteralError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
};

const IDENTIFIER = /[A-Za-z_$][\w$]*/y;
const NUMBER = /-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;

class Reader {
  private pos: number;

  constructor(
    private readonly text: string,
    start: number,
  ) {
    this.pos = start;
  }

  get offset(): number {
    return this.pos;
  }

  private fail(what: string): never {
    throw new LiteralError(`${what} at offset ${this.pos}`);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? "")) this.pos += 1;
  }

  private peek(): string {
    this.skipSpace();
    return this.text[this.pos] ?? "";
  }

  private expect(char: string): void {
    if (this.peek() !== char) this.fail(`expected "${char}"`);
    this.pos += 1;
  }

  private sticky(pattern: RegExp): string | null {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (match === null) return null;
    this.pos += match[0].length;
    return match[0];
  }

  private string(): string {
    const quote = this.text[this.pos];
    this.pos += 1;
    let out = "";
    while (this.pos < this.text.length) {
      const char = this.text[this.pos] ?? "";
      this.pos += 1;
      if (char === quote) return out;
      if (char !== "\\") {
        out += char;
        continue;
      }
      const escaped = this.text[this.pos] ?? "";
      this.pos += 1;
      if (escaped === "x" || escaped === "u") {
        const braced = escaped === "u" && this.text[this.pos] === "{";
        const end = braced ? this.text.indexOf("}", this.pos) : this.pos + (escaped === "x" ? 2 : 4);
        const hex = this.text.slice(braced ? this.pos + 1 : this.pos, end);
        if (!/^[0-9a-fA-F]+$/.test(hex)) this.fail("bad escape");
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        this.pos = braced ? end + 1 : end;
      } else out += SIMPLE_ESCAPES[escaped] ?? escaped;
    }
    return this.fail("unterminated string");
  }

  private key(): string {
    const char = this.peek();
    if (char === '"' || char === "'") return this.string();
    const word = this.sticky(IDENTIFIER) ?? this.sticky(NUMBER);
    return word ?? this.fail("expected a key");
  }

  value(): unknown {
    const char = this.peek();
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"' || char === "'") return this.string();
    if (char === "!") {
      this.pos += 1;
      const digit = this.text[this.pos];
      if (digit !== "0" && digit !== "1") this.fail("expected !0 or !1");
      this.pos += 1;
      return digit === "0";
    }
    const number = this.sticky(NUMBER);
    if (number !== null) return Number(number);
    const word = this.sticky(IDENTIFIER);
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    if (word === "void" && this.sticky(/\s*0/y) !== null) return undefined;
    return this.fail(`unexpected ${word === null ? `"${char}"` : `identifier ${word}`}`);
  }

  private object(): Record<string, unknown> {
    this.expect("{");
    const out: Record<string, unknown> = {};
    while (this.peek() !== "}") {
      const key = this.key();
      this.expect(":");
      out[key] = this.value();
      if (this.peek() === ",") this.pos += 1;
      else if (this.peek() !== "}") this.fail('expected "," or "}"');
    }
    this.pos += 1;
    return out;
  }

  private array(): unknown[] {
    this.expect("[");
    const out: unknown[] = [];
    while (this.peek() !== "]") {
      out.push(this.value());
      if (this.peek() === ",") this.pos += 1;
      else if (this.peek() !== "]") this.fail('expected "," or "]"');
    }
    this.pos += 1;
    return out;
  }
}

/**
 * Reads the literal that starts at `start` (after optional whitespace) and returns it with the offset
 * just past it. Throws `LiteralError` on anything that is not plain data (calls, templates, spreads).
 */
export function readJsLiteral(text: string, start = 0): { value: unknown; end: number } {
  const reader = new Reader(text, start);
  const value = reader.value();
  return { value, end: reader.offset };
}
