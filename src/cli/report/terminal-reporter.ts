/**
 * The one terminal reporter of sssf run, sssf resume, the cluster's run and sssf tail, in two modes:
 * plain lines (a pipe, a file, CI, NO_COLOR, TERM=dumb) and the live view (a terminal: the same plain
 * lines, with a listr2 area of running phases drawn under them).
 */

import type { RunReporter } from "../../session/reporter.js";
import { paint } from "../format.js";
import { batchedWrites } from "./batched-writes.js";
import { LiveBoard, type LiveStream } from "./live-board.js";
import { liveView } from "./live-view.js";
import { createPlainLines } from "./plain-lines.js";

/**
 * Whether `out` gets the live view: a terminal, with none of `NO_COLOR`, `CI` or `TERM=dumb` set.
 * Anything else (a pipe, a file, CI logs) gets the plain lines alone.
 */
export function wantsLiveProgress(
  out: Pick<NodeJS.WriteStream, "isTTY">,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (out.isTTY !== true) return false;
  if (env.NO_COLOR !== undefined || env.TERM === "dumb") return false;
  return env.CI === undefined || env.CI === "" || env.CI === "0" || env.CI.toLowerCase() === "false";
}

/** The terminal reporter: a run reporter whose live area, when it has one, can be drawn now. */
export interface TerminalReporter extends RunReporter {
  /** `live` or `plain`. */
  readonly mode: "live" | "plain";
  /** Draws the live area now (tests draw without the timer); nothing in plain mode. */
  redraw(): void;
  /** Starts drawing a `held` live area (`sssf tail`, once the run so far is printed). */
  show(): void;
}

/** Options of {@link createTerminalReporter}. */
export interface TerminalReporterOptions {
  /** The mode; by default live when {@link wantsLiveProgress} says so for `out` and `env`. */
  mode?: "live" | "plain";
  env?: NodeJS.ProcessEnv;
  /** Live: frame interval in ms (default 100); 0 draws only on changes and `redraw`. */
  intervalMs?: number;
  /** Live: the clock for elapsed times (default `Date.now`). */
  now?: () => number;
  /** Live: draw nothing until `show()`. */
  held?: boolean;
}

/**
 * The terminal reporter on `out` (paths shown relative to `cwd`). Both modes print the same permanent
 * lines, byte for byte apart from the live area's cursor controls: the live view prints them above
 * its area (so a run on a terminal, in CI and through `sssf tail` reads the same).
 */
export function createTerminalReporter(
  out: NodeJS.WriteStream | LiveStream,
  cwd: string,
  options: TerminalReporterOptions = {},
): TerminalReporter {
  const stream = out as NodeJS.WriteStream;
  const mode = options.mode ?? (wantsLiveProgress(stream, options.env) ? "live" : "plain");
  if (mode === "plain") {
    const plain = createPlainLines(stream, cwd, batchedWrites(stream));
    return { ...plain, mode, redraw() {}, show() {} };
  }
  const board = new LiveBoard(out, {
    style: {
      spinner: (text) => paint(stream, "cyan", text),
      detail: (text) => paint(stream, "dim", text),
    },
    held: options.held === true,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });
  // The plain lines go through the board: above the live area (batched as on `out` itself).
  const above = {
    ...(typeof stream.cork === "function" ? { cork: () => undefined } : {}),
    write: (chunk: string) => {
      board.print(String(chunk));
      return true;
    },
  };
  const plain = createPlainLines(stream, cwd, batchedWrites(above));
  return {
    ...liveView(plain, board, options.now ?? Date.now),
    mode,
    redraw: () => board.draw(),
    show: () => board.show(),
  };
}
