// Regenerates src/util/secrets/gitleaks-rules.json from gitleaks' default rule set (config/gitleaks.toml of
// the gitleaks repository, MIT licence): `node scripts/import-gitleaks-rules.mjs <gitleaks.toml> <commit>`.
// The rules stay in gitleaks' own
// (Go RE2) syntax; src/util/secrets/gitleaks-loader.ts converts them. Descriptions are left out.
// The TOML reader covers what that file uses: tables, arrays of tables, '''literal''' and "basic"
// strings, numbers, and arrays of strings over several lines.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [source, commit] = process.argv.slice(2);
if (source === undefined || commit === undefined || !/^[0-9a-f]{40}$/.test(commit)) {
  console.error("usage: node scripts/import-gitleaks-rules.mjs <path/to/gitleaks.toml> <40-hex commit>");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const text = readFileSync(source, "utf8");

/** Reads one value at `at`; returns [value, next index]. */
function readValue(at) {
  if (text.startsWith("'''", at)) {
    const end = text.indexOf("'''", at + 3);
    return [text.slice(at + 3, end), end + 3];
  }
  if (text[at] === '"') {
    let end = at + 1;
    while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
    return [JSON.parse(text.slice(at, end + 1)), end + 1];
  }
  if (text[at] === "[") {
    const items = [];
    let i = at + 1;
    for (;;) {
      while (/[\s,]/.test(text[i])) i++;
      if (text[i] === "#") {
        i = text.indexOf("\n", i);
        continue;
      }
      if (text[i] === "]") return [items, i + 1];
      const [item, next] = readValue(i);
      items.push(item);
      i = next;
    }
  }
  const match = /^[^\s#]+/.exec(text.slice(at));
  const raw = match[0];
  if (raw === "true" || raw === "false") return [raw === "true", at + raw.length];
  return [Number(raw), at + raw.length];
}

const top = {};
let table = top;
const rules = [];
for (let i = 0; i < text.length; ) {
  while (i < text.length && /\s/.test(text[i])) i++;
  if (i >= text.length) break;
  if (text[i] === "#") {
    i = text.indexOf("\n", i) + 1 || text.length;
    continue;
  }
  if (text[i] === "[") {
    const end = text.indexOf("\n", i);
    const header = text.slice(i, end).trim();
    if (header === "[[rules]]") {
      table = {};
      rules.push(table);
    } else if (header === "[[rules.allowlists]]") {
      const rule = rules.at(-1);
      rule.allowlists ??= [];
      table = {};
      rule.allowlists.push(table);
    } else if (header === "[allowlist]") {
      table = {};
      top.allowlist = table;
    } else throw new Error(`unknown table ${header}`);
    i = end + 1;
    continue;
  }
  const key = /^[A-Za-z_]+/.exec(text.slice(i))[0];
  i += key.length;
  while (text[i] === " " || text[i] === "=") i++;
  const [value, next] = readValue(i);
  table[key] = value;
  i = next;
}

const KEPT = ["id", "regex", "secretGroup", "entropy", "keywords", "path"];
const data = {
  allowlist: { regexes: top.allowlist.regexes, stopwords: top.allowlist.stopwords },
  rules: rules.map((rule) => {
    const kept = Object.fromEntries(KEPT.filter((key) => key in rule).map((key) => [key, rule[key]]));
    if (rule.allowlists)
      kept.allowlists = rule.allowlists.map(({ description: _, ...allowlist }) => allowlist);
    return kept;
  }),
};
const licence = readFileSync(path.join(path.dirname(source), "..", "LICENSE"), "utf8").trim();
// One rule per line: the file stays short to read and to diff; Biome leaves it as it is (biome.json).
const json = [
  "{",
  `  "source": ${JSON.stringify("gitleaks' config/gitleaks.toml: its default rules as data (ids, Go RE2 regexes, keywords, entropy, allowlists; descriptions left out), written by scripts/import-gitleaks-rules.mjs, read by gitleaks-loader.ts. Do not edit: regenerate.")},`,
  `  "commit": ${JSON.stringify(commit)},`,
  `  "license": ${JSON.stringify(licence)},`,
  `  "allowlist": ${JSON.stringify(data.allowlist)},`,
  `  "rules": [`,
  data.rules.map((rule) => `    ${JSON.stringify(rule)}`).join(",\n"),
  "  ]",
  "}",
  "",
].join("\n");
writeFileSync(path.join(root, "src/util/secrets/gitleaks-rules.json"), json);
console.log(`${data.rules.length} rules written`);
