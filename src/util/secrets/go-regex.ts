/**
 * Go RE2 syntax, as gitleaks' rules are written, converted to a JavaScript regex source: inline flags
 * (`(?i)` on a group, `(?-i:…)`), POSIX classes, `\z`, and what else those rules use.
 */

const LETTER = /[A-Za-z]/;

/** `c` and its other case, for a character class (a letter only). */
function bothCases(c: string): string {
  return LETTER.test(c) ? `${c.toLowerCase()}${c.toUpperCase()}` : c;
}

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "A-Za-z0-9",
  alpha: "A-Za-z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: String.raw`\t\n\v\f\r `,
  xdigit: "0-9A-Fa-f",
  word: String.raw`\w`,
  punct: String.raw`!-\/:-@\[-\x60{-~`,
};

/** Converts the class starting at `source[at] === "["`; returns the JS class and the index after it. */
function convertClass(source: string, at: number, foldCase: boolean): [string, number] {
  let i = at + 1;
  let out = "[";
  if (source[i] === "^") {
    out += "^";
    i++;
  }
  let first = true;
  while (i < source.length && (source[i] !== "]" || first)) {
    first = false;
    const c = source[i] as string;
    if (c === "[" && source[i + 1] === ":") {
      const close = source.indexOf(":]", i + 2);
      const name = source.slice(i + 2, close);
      const posix = POSIX_CLASSES[name];
      if (posix === undefined) throw new Error(`unknown class [:${name}:]`);
      out += posix;
      i = close + 2;
      continue;
    }
    if (c === "\\") {
      out += source.slice(i, i + 2);
      if (source[i + 1] === "x" && source[i + 2] !== "{") {
        out += source.slice(i + 2, i + 4);
        i += 4;
      } else i += 2;
      continue;
    }
    if (c === "[") {
      out += "\\[";
      i++;
      continue;
    }
    // A range of letters of one case gets its other-case range too.
    const to = source[i + 2];
    if (source[i + 1] === "-" && to !== undefined && to !== "]") {
      out += `${c}-${to}`;
      if (foldCase && LETTER.test(c) && LETTER.test(to)) {
        const other = (x: string) => (x === x.toLowerCase() ? x.toUpperCase() : x.toLowerCase());
        out += `${other(c)}-${other(to)}`;
      }
      i += 3;
      continue;
    }
    out += foldCase ? bothCases(c) : c;
    i++;
  }
  return [`${out}]`, i + 1];
}

interface Group {
  fold: boolean;
  dotAll: boolean;
}

/**
 * A Go RE2 pattern as JavaScript regex source (no flags needed): inline flags `(?i)`, `(?i:…)`,
 * `(?-i:…)` and `(?s:…)` become explicit letter cases and `[\s\S]`, `(?P<name>…)` (gitleaks' labels)
 * a non-capturing group, POSIX classes their ranges, `\z` and `\A` the ends of the text. Throws on
 * syntax it does not know.
 * @example convertGoRegex("(?i)key(?-i:[A-Z])"); // "[kK][eE][yY](?:[A-Z])"
 */
export function convertGoRegex(source: string): string {
  const stack: Group[] = [{ fold: false, dotAll: false }];
  const top = () => stack[stack.length - 1] as Group;
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[i + 1];
      if (next === "z") out += "$";
      else if (next === "A") out += "^";
      else if (next === "x" && source[i + 2] !== "{") {
        out += source.slice(i, i + 4);
        i += 4;
        continue;
      } else out += source.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "[") {
      const [converted, next] = convertClass(source, i, top().fold);
      out += converted;
      i = next;
      continue;
    }
    if (c === "(") {
      const rest = source.slice(i);
      const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(rest);
      const named = /^\(\?P?<[A-Za-z_]\w*>/.exec(rest);
      const look = /^\(\?<?[=!]/.exec(rest);
      if (named !== null) {
        stack.push({ ...top() });
        out += "(?:";
        i += named[0].length;
      } else if (look !== null) {
        stack.push({ ...top() });
        out += look[0];
        i += look[0].length;
      } else if (flags !== null && (flags[1] !== "" || flags[2] !== undefined)) {
        const on = flags[1] ?? "";
        const off = flags[2] ?? "";
        const state = flags[3] === ")" ? top() : { ...top() };
        if (on.includes("i")) state.fold = true;
        if (off.includes("i")) state.fold = false;
        if (on.includes("s")) state.dotAll = true;
        if (off.includes("s")) state.dotAll = false;
        if (/[^is]/.test(on + off)) throw new Error(`unknown flags in ${flags[0]}`);
        if (flags[3] === ":") {
          stack.push(state);
          out += "(?:";
        }
        i += flags[0].length;
      } else if (rest.startsWith("(?:")) {
        stack.push({ ...top() });
        out += "(?:";
        i += 3;
      } else {
        stack.push({ ...top() });
        out += "(";
        i++;
      }
      continue;
    }
    if (c === ")") {
      stack.pop();
      if (stack.length === 0) throw new Error("unbalanced )");
      out += ")";
      i++;
      continue;
    }
    if (c === "{") {
      // A repetition's bounds hold no letters.
      const close = source.indexOf("}", i);
      out += source.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    if (c === ".") out += top().dotAll ? String.raw`[\s\S]` : ".";
    else if (top().fold && LETTER.test(c)) out += `[${bothCases(c)}]`;
    else out += c;
    i++;
  }
  return out;
}
