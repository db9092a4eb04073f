/** Lines held for the end of this tick, per stream; written at exit too, so none is lost. */
const pendingDrains = new Set<() => void>();
let drainAtExit = false;

/** Writes whole lines to a stream: `line` may hold a line for the end of the tick, `drain` writes what is held. */
export interface LineWriter {
  line(line: string): void;
  drain(): void;
}

/**
 * A writer for lines that come in floods (an agent's tool calls, thousands a second): the lines of one
 * tick are joined and leave in one write. Corking is not enough: a file's stdout (CI logs) writes
 * each corked chunk with its own write(2). `drain` writes the held lines now, so a line written
 * directly after them keeps its place.
 */
export function batchedWrites(out: Pick<NodeJS.WriteStream, "write"> & { cork?: unknown }): LineWriter {
  if (typeof out.cork !== "function") {
    // A test's collector: each line as it comes.
    return { line: (line) => out.write(`${line}\n`), drain: () => undefined };
  }
  let pending = "";
  const drain = () => {
    if (pending === "") return;
    const text = pending;
    pending = "";
    pendingDrains.delete(drain);
    out.write(text);
  };
  if (!drainAtExit) {
    drainAtExit = true;
    process.once("exit", () => {
      for (const pendingDrain of pendingDrains) pendingDrain();
    });
  }
  return {
    line: (line) => {
      if (pending === "") {
        pendingDrains.add(drain);
        process.nextTick(drain);
      }
      pending += `${line}\n`;
    },
    drain,
  };
}
