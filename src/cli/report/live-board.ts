/**
 * The live area at the bottom of a terminal: one listr2 task per running phase, drawn by a listr2
 * renderer of our own (listr2's default renderer keeps finished tasks in its frame and holds back every
 * other write until the end; a run needs its permanent lines printed above the live area as they come).
 */

import {
  figures,
  Listr,
  type ListrRendererFactory,
  type ListrTaskObject,
  type ListrTaskWrapper,
  Spinner,
} from "listr2";
import { graphemeCountUpTo, graphemes, truncateGraphemes } from "../../util/terminal-text.js";

/** The stream the board draws on: a terminal (or a test's stand-in with `isTTY` and `columns`). */
export type LiveStream = Pick<NodeJS.WriteStream, "write" | "isTTY" | "columns">;

const ERASE_LINE_UP = "\x1b[1A\x1b[2K";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

/** Graphemes a terminal draws two columns wide: East Asian wide and fullwidth forms, emoji. */
const WIDE =
  /^(?:\p{Extended_Pictographic}|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{20000}-\u{3fffd}])/u;

/**
 * Columns `text` takes on a terminal (an estimate: wide characters and emoji count two); with `limit`,
 * counting stops once past it (any result above `limit` means "too wide").
 */
export function displayWidth(text: string, limit = Number.POSITIVE_INFINITY): number {
  if (!/[^\u0000-\u02ff]/.test(text)) return text.length;
  let width = 0;
  for (const { segment } of graphemes(text)) {
    width += WIDE.test(segment) ? 2 : 1;
    if (width > limit) break;
  }
  return width;
}

/**
 * `text` cut by graphemes (never half an emoji) so that it takes at most `columns` columns, ending in
 * "…" when cut. Expects text already made terminal-safe.
 */
export function fitColumns(text: string, columns: number): string {
  if (columns < 1) return "";
  if (displayWidth(text, columns) <= columns) return text;
  let max = Math.min(columns, graphemeCountUpTo(text, columns));
  let cut = truncateGraphemes(text, max);
  while (max > 1 && displayWidth(cut) > columns) cut = truncateGraphemes(text, --max);
  return cut;
}

/** What the board shows for one running phase, asked for at every frame. */
export interface LiveLine {
  /** The spinner line after the spinner: already terminal-safe; cut to the width by the board. */
  title(): string;
  /** The second line (the agent's latest text), terminal-safe, or "" for none. */
  detail(): string;
}

interface Entry {
  line: LiveLine;
  task: ListrTaskObject<unknown> | null;
  /** Resolves the phase's listr2 task. */
  done: () => void;
  closed: boolean;
}

/** Options of {@link LiveBoard}. */
export interface LiveBoardOptions {
  /** Frame interval in ms (default 100); 0: draw only on {@link LiveBoard.draw} (tests). */
  intervalMs?: number;
  /** Styles the spinner and the detail line (colors), given their plain text. */
  style?: { spinner(text: string): string; detail(text: string): string };
  /** Draw nothing until {@link LiveBoard.show} (`sssf tail` prints the run so far first). */
  held?: boolean;
}

/**
 * A listr2 renderer that hands its tasks to the {@link LiveBoard} named in its options and takes
 * them back when the task list ends.
 */
class BoardRenderer {
  static rendererOptions: { board?: LiveBoard; key?: string } = {};
  static rendererTaskOptions: Record<PropertyKey, unknown> = {};
  // The board draws on the stream it was given, whatever process.stdout is (`--json` puts progress on
  // stderr): listr2 must not fall back to its line renderer on stdout.
  static nonTTY = true;
  readonly render: () => void;
  readonly end: () => void;

  constructor(tasks: ListrTaskObject<unknown>[], options: typeof BoardRenderer.rendererOptions) {
    const { board, key = "" } = options;
    const task = tasks[0];
    this.render = () => {
      if (task !== undefined) board?.attach(key, task);
    };
    this.end = () => board?.detach(key);
  }
}

/**
 * Running phases as listr2 tasks, drawn at the bottom of `out` with a spinner; `print` writes
 * permanent lines above them. Starts drawing with the first phase, stops (erasing the area, showing
 * the cursor) when none is left or at `stop`. Its timer never keeps the process alive.
 */
export class LiveBoard {
  readonly #out: LiveStream;
  readonly #entries = new Map<string, Entry>();
  readonly #spinner = new Spinner();
  readonly #intervalMs: number;
  readonly #style: NonNullable<LiveBoardOptions["style"]>;
  #timer: NodeJS.Timeout | null = null;
  #height = 0;
  #cursorHidden = false;
  #held: boolean;
  readonly #restoreCursor = () => {
    if (this.#cursorHidden) this.#out.write(SHOW_CURSOR);
  };

  constructor(out: LiveStream, options: LiveBoardOptions = {}) {
    this.#out = out;
    this.#intervalMs = options.intervalMs ?? 100;
    this.#style = options.style ?? { spinner: (text) => text, detail: (text) => text };
    this.#held = options.held === true;
  }

  /** Starts drawing a held board, with the phases added meanwhile. */
  show(): void {
    if (!this.#held) return;
    this.#held = false;
    if (this.#entries.size === 0) return;
    this.#start();
    this.draw();
  }

  /** Adds the phase `key` as a running listr2 task; its line is drawn until {@link end}. */
  add(key: string, line: LiveLine): void {
    if (this.#entries.has(key)) return;
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#entries.set(key, { line, task: null, done, closed: false });
    const list = new Listr<unknown, ListrRendererFactory>(
      [
        {
          title: key,
          task: (
            _ctx: unknown,
            wrapper: ListrTaskWrapper<unknown, ListrRendererFactory, ListrRendererFactory>,
          ) => {
            wrapper.title = key;
            return finished;
          },
        },
      ],
      {
        renderer: BoardRenderer,
        rendererOptions: { board: this, key },
        silentRendererCondition: false,
        registerSignalListeners: false,
        exitOnError: false,
      },
    );
    list.run().catch(() => {});
    this.#start();
    this.draw();
  }

  /** Ends the phase `key`: its line leaves the live area at once. */
  end(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.closed = true;
    entry.done();
    this.#entries.delete(key);
    if (this.#entries.size === 0) this.stop();
    else this.draw();
  }

  /** Writes `text` (whole lines) above the live area, which is drawn again below it. */
  print(text: string): void {
    if (this.#height === 0) {
      this.#out.write(text);
      return;
    }
    this.#out.write(this.#erase() + text + this.#frame());
  }

  /** Draws the live area now (the timer does this every interval). */
  draw(): void {
    if (this.#held || (this.#entries.size === 0 && this.#height === 0)) return;
    this.#out.write(this.#erase() + this.#frame());
  }

  /** Erases the live area and shows the cursor; a later {@link add} starts again. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    for (const entry of this.#entries.values()) entry.done();
    this.#entries.clear();
    const erase = this.#erase();
    if (erase !== "" || this.#cursorHidden) this.#out.write(erase + (this.#cursorHidden ? SHOW_CURSOR : ""));
    this.#cursorHidden = false;
    process.removeListener("exit", this.#restoreCursor);
  }

  /** Called by the listr2 renderer when the phase's task list runs. */
  attach(key: string, task: ListrTaskObject<unknown>): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.task = task;
  }

  /** Called by the listr2 renderer when the phase's task list ended. */
  detach(key: string): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.task = null;
  }

  #start(): void {
    if (this.#held) return;
    if (!this.#cursorHidden) {
      this.#out.write(HIDE_CURSOR);
      this.#cursorHidden = true;
      process.once("exit", this.#restoreCursor);
    }
    if (this.#timer !== null || this.#intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      this.#spinner.spin();
      this.draw();
    }, this.#intervalMs);
    this.#timer.unref();
  }

  #erase(): string {
    const erase = ERASE_LINE_UP.repeat(this.#height);
    this.#height = 0;
    return erase === "" ? "" : `${erase}\r`;
  }

  #frame(): string {
    // One column spare: a line exactly as wide as the terminal wraps on some terminals.
    const columns = Math.max(20, (this.#out.columns ?? 80) - 1);
    const lines: string[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.closed || entry.task?.hasFinalized() === true) continue;
      const spinner = this.#spinner.fetch();
      lines.push(`${this.#style.spinner(spinner)} ${fitColumns(entry.line.title(), columns - 2)}`);
      const detail = entry.line.detail();
      if (detail !== "")
        lines.push(`   ${this.#style.detail(fitColumns(`${figures.pointerSmall} ${detail}`, columns - 3))}`);
    }
    this.#height = lines.length;
    return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  }
}
