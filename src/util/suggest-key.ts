function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known key a typo most likely meant (`colour` → `color`, `codingAgent` → `coding_agent`), if any:
 * camelCase and kebab-case spellings of a snake_case key count as exact, else the nearest key within
 * an edit distance of a third of its length. Never throws.
 */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  const snake = unknown
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase();
  if (known.includes(snake)) return snake;
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = levenshtein(snake, key);
    if (!best || distance < best.distance) best = { key, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(snake.length, best.key.length) / 3));
  return best.distance <= allowed ? best.key : undefined;
}
