import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { FileText } from "../../server/api-types.js";

/** One file of a unified diff: its path, its lines, and how many were added and removed. */
export interface DiffFile {
  path: string;
  lines: string[];
  added: number;
  removed: number;
}

/** A unified diff (`git diff`, `git show`, a saved phase diff) split into its preamble and files. */
export function parseDiff(text: string): { preamble: string[]; files: DiffFile[] } {
  const preamble: string[] = [];
  const files: DiffFile[] = [];
  let current: DiffFile | null = null;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("diff --git ")) {
      const match = / b\/(.*)$/.exec(line);
      current = { path: match?.[1] ?? line.slice(11), lines: [line], added: 0, removed: 0 };
      files.push(current);
      continue;
    }
    if (current === null) {
      preamble.push(line);
      continue;
    }
    current.lines.push(line);
    if (line.startsWith("+++ ") || line.startsWith("--- ")) continue;
    if (line.startsWith("+")) current.added += 1;
    else if (line.startsWith("-")) current.removed += 1;
  }
  return { preamble, files };
}

/** The class of one diff line: added, removed, a hunk header, file metadata, or context. */
export function lineClass(line: string): string {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "diff-meta";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  if (line.startsWith("@@")) return "diff-hunk";
  if (/^(diff --git|index |new file|deleted file|similarity|rename |old mode|new mode|Binary)/.test(line)) {
    return "diff-meta";
  }
  return "diff-ctx";
}

/** Lines of one file shown before "Show all": a huge file stays light until asked for. */
export const FILE_LINES_SHOWN = 1500;

function DiffLines({ lines, limit }: { lines: string[]; limit: number }) {
  return (
    <pre class="diff-lines">
      {lines.slice(0, limit).map((line, i) => (
        <span key={i} class={lineClass(line)}>
          {line}
          {"\n"}
        </span>
      ))}
    </pre>
  );
}

function FileBlock({ file, index }: { file: DiffFile; index: number }) {
  const [all, setAll] = useState(false);
  const limit = all ? file.lines.length : FILE_LINES_SHOWN;
  return (
    <div class="diff-file" data-file={file.path} data-index={index}>
      <div class="diff-file-head">
        <span class="mono">{file.path}</span> <span class="diff-count-add">+{file.added}</span>{" "}
        <span class="diff-count-del">−{file.removed}</span>
      </div>
      <DiffLines lines={file.lines} limit={limit} />
      {file.lines.length > limit ? (
        <p class="note">
          {file.lines.length - limit} more lines of this file are not shown.{" "}
          <button type="button" class="link-button" onClick={() => setAll(true)}>
            Show all
          </button>
        </p>
      ) : null}
    </div>
  );
}

/**
 * A diff as a file list (with added and removed counts; a click scrolls to the file) and per-file
 * unified diffs with added and removed lines colored. Text nodes only: the diff is repo text.
 */
export function DiffView({ diff }: { diff: FileText }) {
  const root = useRef<HTMLDivElement>(null);
  const { preamble, files } = parseDiff(diff.text);
  const scrollTo = (index: number) =>
    root.current?.querySelector(`.diff-file[data-index="${index}"]`)?.scrollIntoView({ block: "start" });
  return (
    <div class="diff" ref={root} data-source={diff.source}>
      <p class="muted mono diff-source">{diff.source}</p>
      {diff.note ? <p class="note diff-note">{diff.note}</p> : null}
      {diff.cut ? (
        <p class="note diff-cut">
          Truncated: showing the first {diff.text.length.toLocaleString()} of{" "}
          {diff.total_chars.toLocaleString()} characters.
        </p>
      ) : null}
      {preamble.length > 0 ? <DiffLines lines={preamble} limit={preamble.length} /> : null}
      {files.length === 0 && !diff.note ? <p class="muted">No changes.</p> : null}
      {files.length > 0 ? (
        <ul class="diff-files">
          {files.map((file, i) => (
            <li key={i}>
              <button type="button" class="link-button mono" onClick={() => scrollTo(i)}>
                {file.path}
              </button>{" "}
              <span class="diff-count-add">+{file.added}</span>{" "}
              <span class="diff-count-del">−{file.removed}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {files.map((file, i) => (
        <FileBlock key={i} file={file} index={i} />
      ))}
    </div>
  );
}

/** A text fetched when first shown (inside a `Fold`): a loading line, the error, or the render. */
export function Lazy<T>({ load, render }: { load: () => Promise<T>; render: (value: T) => JSX.Element }) {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  useEffect(() => {
    let gone = false;
    load().then(
      (value) => !gone && setState({ value }),
      (error: Error) => !gone && setState({ error: error.message }),
    );
    return () => {
      gone = true;
    };
  }, []);
  if (state.error !== undefined) return <p class="error-line">{state.error}</p>;
  if (state.value === undefined) return <p class="muted">Loading…</p>;
  return render(state.value);
}
