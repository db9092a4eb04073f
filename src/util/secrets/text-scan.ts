/**
 * One pass over a text that tells redaction where to look: which rule keywords occur (an Aho-Corasick
 * automaton over ASCII, case-insensitive, as gitleaks' prefilter), and where the runs of base64
 * characters are (candidates for an AWS secret key and for encoded secrets). A clean text costs this
 * pass and nothing else.
 */

/** A run of base64 characters: `[start, end)`; `standard` when it holds no `-` or `_`. */
export interface Base64Run {
  start: number;
  end: number;
  standard: boolean;
}

/** What one pass found. */
export interface TextScan {
  /** The ids of the keywords found. */
  keywords: Set<number>;
  /** Runs of at least `MIN_RUN` base64 characters (`A-Za-z0-9+/-_`), in order. */
  runs: Base64Run[];
  /** Whether a `%` followed by two hex digits occurs. */
  percentEscape: boolean;
}

/** Shortest base64 run reported: 12 bytes encoded. */
export const MIN_RUN = 16;

// Character classes by code unit (ASCII): 1 standard base64, 2 url-safe base64 only (`-`, `_`).
const BASE64 = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9+/]/.test(ch)) BASE64[c] = 1;
  else if (ch === "-" || ch === "_") BASE64[c] = 2;
}
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const BACKSLASH = 92;

/** An Aho-Corasick automaton over lower-cased ASCII, built once for a fixed keyword list. */
export class KeywordScanner {
  /** Transition table: state * 128 + code unit -> next state. */
  readonly #next: Uint32Array;
  /** For each state, the keyword ids that end there (its own and its suffix links'), or null. */
  readonly #outputs: (number[] | null)[];
  /** 1 for a state where a keyword ends. */
  readonly #ends: Uint8Array;

  /** `keywords[i]` gets id `i`; matched case-insensitively (ASCII). */
  constructor(keywords: readonly string[]) {
    const goto: Map<number, number>[] = [new Map()];
    const outputs: number[][] = [[]];
    keywords.forEach((keyword, id) => {
      let state = 0;
      for (const ch of keyword.toLowerCase()) {
        const code = ch.charCodeAt(0);
        if (code >= 128) return;
        let next = goto[state]?.get(code);
        if (next === undefined) {
          next = goto.length;
          goto.push(new Map());
          outputs.push([]);
          goto[state]?.set(code, next);
        }
        state = next;
      }
      outputs[state]?.push(id);
    });
    const table = new Uint32Array(goto.length * 128);
    const fail = new Uint32Array(goto.length);
    const queue: number[] = [];
    for (let c = 0; c < 128; c++) {
      const next = goto[0]?.get(c) ?? 0;
      table[c] = next;
      if (next !== 0) queue.push(next);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number;
      const failed = fail[state] as number;
      outputs[state]?.push(...(outputs[failed] ?? []));
      for (let c = 0; c < 128; c++) {
        const next = goto[state]?.get(c);
        if (next === undefined) table[state * 128 + c] = table[failed * 128 + c] as number;
        else {
          table[state * 128 + c] = next;
          fail[next] = table[failed * 128 + c] as number;
          queue.push(next);
        }
      }
    }
    // Upper-case letters go where their lower case goes.
    for (let state = 0; state < goto.length; state++) {
      for (let c = 65; c <= 90; c++) table[state * 128 + c] = table[state * 128 + c + 32] as number;
    }
    this.#next = table;
    this.#outputs = outputs.map((ids) => (ids.length === 0 ? null : [...new Set(ids)]));
    this.#ends = Uint8Array.from(outputs, (ids) => (ids.length === 0 ? 0 : 1));
  }

  /** Scans `text` once. */
  scan(text: string): TextScan {
    const keywords = new Set<number>();
    const runs: Base64Run[] = [];
    let percentEscape = false;
    const table = this.#next;
    const ends = this.#ends;
    let state = 0;
    let runStart = -1;
    let standard = true;
    const length = text.length;
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        state = table[(state << 7) | c] as number;
        if (ends[state] === 1) this.#found(state, keywords);
        const kind = BASE64[c] as number;
        if (kind !== 0) {
          if (runStart === -1) {
            // An escape in JSON text (`\n`, `\t`, `\r`) is not part of the run after it.
            if (i > 0 && text.charCodeAt(i - 1) === BACKSLASH && (c === 110 || c === 116 || c === 114))
              continue;
            runStart = i;
            standard = true;
          }
          if (kind === 2) standard = false;
          continue;
        }
        if (c === 37 && isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))) percentEscape = true;
      } else state = 0;
      if (runStart !== -1) {
        if (i - runStart >= MIN_RUN) runs.push({ start: runStart, end: i, standard });
        runStart = -1;
      }
    }
    if (runStart !== -1 && length - runStart >= MIN_RUN)
      runs.push({ start: runStart, end: length, standard });
    return { keywords, runs, percentEscape };
  }

  #found(state: number, keywords: Set<number>): void {
    for (const id of this.#outputs[state] as number[]) keywords.add(id);
  }
}
