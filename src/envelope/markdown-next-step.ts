/**
 * What a report's Next Recommended says about going on: a real next step, no next step at all, a
 * block, or an order to stop. Code acts on it (`decide`), so the wording rules are precise and tested.
 */

/**
 * - `next`: a real next step ("Ready for specs (sdd-spec)", "Fix the toggle test, then re-verify");
 * - `none`: no next step is needed ("None needed", "Nothing further: the change is archived");
 * - `blocked`: the work cannot go on ("Blocked: …", "blocked by …", "cannot proceed", "not ready for");
 * - `stop`: the run should stop or wait for someone ("Stop here", "Halt", "Wait for …", "awaiting
 *   approval", "ask the user …").
 */
export type NextStepKind = "next" | "none" | "blocked" | "stop";

/** How a Next Recommended reads, and the words that decided it. */
export interface NextStepReading {
  kind: NextStepKind;
  /** The words as written that made it a block or a stop (`Blocked:`, `wait for`); "" otherwise. */
  cue: string;
}

interface Cue {
  kind: "blocked" | "stop";
  pattern: RegExp;
  /** Counts only when the clause starts with it (after bullets, emphasis and emoji). */
  start?: boolean;
  /** Counts even in a conditional clause ("Blocked: … if …"). */
  strong?: boolean;
}

const PEOPLE =
  "(?:the\\s+)?(?:user|human|engineer|operator|owner|product\\s+owner|stakeholders?|team|maintainers?|reviewers?)";
const RUN = "(?:run|workflow|pipeline|orchestrator|process|change|cycle|phase|sdd)";

/** The cues, in the order they are tried. Patterns run on lower-case text with code and quotes masked. */
const CUES: readonly Cue[] = [
  { kind: "blocked", pattern: /^(?:blocked|blockers?|blocking)(?![\w-])/, start: true, strong: true },
  { kind: "blocked", pattern: /\bblocked\s+(?:by|on|until|pending|due\s+to|because)\b/ },
  { kind: "blocked", pattern: /\b(?:is|are|am|remains?|stays?|still|currently)\s+blocked\b/ },
  {
    kind: "blocked",
    pattern:
      /\b(?:cannot|can't|can\s+not|unable\s+to|could\s+not|couldn't)\s+(?:proceed|continue|go\s+on|move\s+on|move\s+forward|progress|start|begin)\b/,
  },
  {
    kind: "blocked",
    pattern:
      /\b(?:do\s+not|don't|must\s+not|mustn't|should\s+not|shouldn't|never)\s+(?:proceed|continue|go\s+on|move\s+on|move\s+forward|advance)\b/,
  },
  { kind: "blocked", pattern: /\bnot\s+(?:yet\s+)?ready\s+(?:for|to)\b/ },
  { kind: "blocked", pattern: /\bblocks?\s+(?:the\s+)?(?:next|further|progress|proceeding)\b/ },
  {
    kind: "stop",
    pattern: new RegExp(
      `^(?:stop|halt|abort|pause)(?![\\w-])(?:\\s*(?:$|[.!:\u2014\u2013-])|\\s+(?:here|now|and|until|before|for|immediately|all|everything|work(?:ing)?|the\\s+${RUN})\\b)`,
    ),
    start: true,
  },
  {
    kind: "stop",
    pattern: new RegExp(
      `\\b${RUN}\\s+(?:should|must|needs?\\s+to|has\\s+to|will)\\s+(?:stop|halt|abort|pause)\\b`,
    ),
  },
  { kind: "stop", pattern: /^(?:wait|await)(?![\w-])(?:\s+(?:for|on|until))?/, start: true },
  { kind: "stop", pattern: /^(?:waiting|awaiting)\s+(?:for|on)\b/, start: true },
  { kind: "stop", pattern: /\b(?:is|are|am|still|currently|now|we're|i'm)\s+waiting\s+(?:for|on)\b/ },
  { kind: "stop", pattern: /\b(?:should|must|needs?\s+to|has\s+to|have\s+to)\s+wait\b/ },
  { kind: "stop", pattern: /\b(?:on\s+hold|held\s+up)\b/ },
  {
    kind: "stop",
    pattern:
      /\b(?:awaiting|pending)\s+(?:\w+\s+)?(?:input|approval|confirmation|clarification|decision|answer|sign-off)\b/,
  },
  {
    kind: "stop",
    pattern: new RegExp(
      `\\b(?:needs?|requires?)\\s+(?:an?\\s+)?${PEOPLE}(?:'s)?\\s+(?:input|decision|answer|approval|confirmation|review|sign-off|intervention|clarification)\\b`,
    ),
  },
  {
    kind: "stop",
    pattern: new RegExp(`^(?:ask|consult|check\\s+with|confirm\\s+with)\\s+${PEOPLE}\\b`),
    start: true,
  },
];

/** Words right before a cue that turn it around: "not blocked by", "no longer blocked", "no need to wait". */
const NEGATED = /(?:\bno|\bnot|\bnever|\bnothing|\bwithout|\bno\s+longer|n't|\bno\s+need\s+to)\s*$/;
/** A clause that only says what to do if something happens: its stops and blocks are not the verdict. */
const CONDITIONAL = /\b(?:if|in\s+case|otherwise|should\s+\w+\s+fail)\b/;
/** "Blockers: none" and the like: a block cue answered by nothing. */
const NO_BLOCKER = /^blockers?\s*[:\u2014\u2013-]?\s*(?:none|nothing|n\/a|no\b)/;
const NONE =
  /^(?:(?:none|nothing|n\/a)(?:\s+(?:needed|required|further|more|else|left|to\s+do))?|no\s+(?:further|next|more)\s+(?:steps?|actions?|work|phases?)(?:\s+(?:needed|required))?)\s*(?:$|[.!:;,(\u2014\u2013-])/;

/**
 * Reads a Next Recommended. The text is cut into clauses (at `.`, `!`, `?` before a space or the end,
 * at `;` and at line ends); inline code and quoted text are names, never cues. A clause is a
 * **block** when it starts with `Blocked`/`Blocker(s)`/`Blocking` (any emphasis; `Blockers: none` is
 * not one), or holds `blocked by|on|until|pending|due to|because`, `is|are|still|remains blocked`,
 * `cannot|can't|unable to|could not proceed|continue|go on|move on|start|begin`, `do not|don't|must
 * not|never proceed|continue|go on|move on`, `not (yet) ready for|to`, `blocks the next|further|progress`.
 * It is a **stop** when it starts with `Stop`/`Halt`/`Abort`/`Pause` alone or followed by `:`, a dash,
 * `here`, `now`, `and`, `until`, `before`, `for`, `the run|workflow|change…` (not "Stop the dev server"),
 * starts with `Wait`/`Await`/`Waiting for`, starts with `Ask|Consult|Check with|Confirm with the
 * user|engineer|owner…`, or holds `the run|workflow… should|must stop|halt`, `is|still waiting for|on`,
 * `should|must|need to wait`, `on hold`, `awaiting|pending (…) input|approval|decision…`, `needs the
 * user's|engineer's input|decision|approval…`. A cue preceded by `no`, `not`, `never`, `nothing`,
 * `without`, `no longer`, `n't` or `no need to` does not count, nor does any cue but a leading
 * `Blocked` in a conditional clause (`if`, `in case`, `otherwise`). The first block or stop in the text
 * decides; without one, text starting with `None`, `Nothing`, `N/A` or `No further steps` is `none`,
 * anything else `next`. Never throws.
 *
 * @example readNextStep("Blocked: resolve open questions in design before proceeding").kind // "blocked"
 * @example readNextStep("Implement the stop button (sdd-apply)").kind // "next"
 */
export function readNextStep(text: string): NextStepReading {
  const masked = maskNames(text).toLowerCase();
  for (const clause of clauses(masked)) {
    const lead = /^[^\p{L}\p{N}]*/u.exec(clause.text)?.[0].length ?? 0;
    const body = clause.text.slice(lead);
    if (NO_BLOCKER.test(body)) continue;
    const conditional = CONDITIONAL.test(body);
    for (const cue of CUES) {
      const match = cue.pattern.exec(body);
      if (match === null || (cue.start && match.index !== 0)) continue;
      if (conditional && !cue.strong) continue;
      if (NEGATED.test(body.slice(0, match.index))) continue;
      const from = clause.start + lead + match.index;
      return { kind: cue.kind, cue: text.slice(from, from + match[0].length).trim() };
    }
  }
  const opening = masked.replace(/^[^\p{L}\p{N}]*/u, "");
  return { kind: NONE.test(opening) ? "none" : "next", cue: "" };
}

/**
 * Inline code spans and double-quoted text replaced by `x`s of the same length (indices stay put);
 * curly apostrophes made straight.
 */
function maskNames(text: string): string {
  return text
    .replace(/`[^`]*`|"[^"\n]*"|\u201c[^\u201d\n]*\u201d/g, (name) => "x".repeat(name.length))
    .replace(/\u2019/g, "'");
}

/** Clauses with their offsets: cut after `.`/`!`/`?` followed by whitespace or the end, at `;` and `\n`. */
function clauses(text: string): { start: number; text: string }[] {
  const found: { start: number; text: string }[] = [];
  const boundary = /[.!?]+(?=\s|$)|[;\n]/g;
  let start = 0;
  for (const match of text.matchAll(boundary)) {
    const end = (match.index ?? 0) + match[0].length;
    found.push(trimmed(text, start, end));
    start = end;
  }
  found.push(trimmed(text, start, text.length));
  return found.filter((clause) => clause.text !== "");
}

function trimmed(text: string, start: number, end: number): { start: number; text: string } {
  const slice = text.slice(start, end);
  const lead = slice.length - slice.trimStart().length;
  return { start: start + lead, text: slice.trim() };
}
