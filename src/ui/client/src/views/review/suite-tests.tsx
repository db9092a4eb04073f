/**
 * A suite's per-test results, from its VerifyOutput envelope when the runner reported them: the tests
 * that fail because of the change, those that already failed at the run's base, and those it fixed,
 * with the counts. Older envelopes have none of these fields: then nothing is shown here (the exit
 * code and output tail above stay the answer).
 */

interface TestItem {
  name: string;
  file: string;
  message?: string;
}

interface TestCounts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** The per-test fields of a VerifyOutput, each present only when the envelope has it. */
export interface TestResults {
  failed: TestItem[] | null;
  preExisting: TestItem[] | null;
  fixed: TestItem[] | null;
  counts: TestCounts | null;
  /** Entries each list left out (`tests_omitted`: each list keeps its first 200). */
  omitted: { failed: number; preExisting: number; fixed: number };
}

function items(value: unknown): TestItem[] | null {
  if (!Array.isArray(value)) return null;
  return value
    .filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null)
    .map((v) => ({
      name: String(v.name ?? ""),
      file: String(v.file ?? ""),
      ...(typeof v.message === "string" && v.message !== "" ? { message: v.message } : {}),
    }));
}

function counts(value: unknown): TestCounts | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const n = (key: string) => (typeof v[key] === "number" ? (v[key] as number) : 0);
  return { total: n("total"), passed: n("passed"), failed: n("failed"), skipped: n("skipped") };
}

function omittedCounts(value: unknown): TestResults["omitted"] {
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const n = (key: string) => (typeof v[key] === "number" && (v[key] as number) > 0 ? (v[key] as number) : 0);
  return { failed: n("failed_tests"), preExisting: n("pre_existing_failures"), fixed: n("fixed_tests") };
}

/** The per-test fields of a parsed VerifyOutput (`failed_tests`, `pre_existing_failures`, `fixed_tests`, `tests`). */
export function testResults(envelope: Record<string, unknown>): TestResults {
  return {
    failed: items(envelope.failed_tests),
    preExisting: items(envelope.pre_existing_failures),
    fixed: items(envelope.fixed_tests),
    counts: counts(envelope.tests),
    omitted: omittedCounts(envelope.tests_omitted),
  };
}

function TestList(props: { title: string; kind: string; list: TestItem[] | null; omitted: number }) {
  const { title, kind, list, omitted } = props;
  if (list === null) return null;
  return (
    <div class={`test-list ${kind}`} data-kind={kind}>
      <h4>
        {title} ({list.length + omitted})
      </h4>
      {list.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ul>
          {list.map((t, i) => (
            <li key={`${t.file}:${t.name}:${i}`}>
              <span class="test-name">{t.name}</span>
              {t.file ? <span class="mono muted"> {t.file}</span> : null}
              {t.message ? <pre class="test-message">{t.message}</pre> : null}
            </li>
          ))}
        </ul>
      )}
      {omitted > 0 ? <p class="muted">… and {omitted} more, listed in the suite's tests file</p> : null}
    </div>
  );
}

/** The three lists and the counts; null when the envelope has no per-test results. */
export function SuiteTests({ envelope }: { envelope: Record<string, unknown> }) {
  const r = testResults(envelope);
  if (r.failed === null && r.preExisting === null && r.fixed === null && r.counts === null) return null;
  return (
    <div class="suite-tests">
      {r.counts ? (
        <p class="test-counts">
          {r.counts.total} tests: {r.counts.passed} passed, {r.counts.failed} failed, {r.counts.skipped}{" "}
          skipped
        </p>
      ) : null}
      <TestList
        title="Fail now, because of the change"
        kind="failed"
        list={r.failed}
        omitted={r.omitted.failed}
      />
      <TestList
        title="Failed before the change (pre-existing, not counted)"
        kind="pre-existing"
        list={r.preExisting}
        omitted={r.omitted.preExisting}
      />
      <TestList
        title="Fixed (failed before, pass now)"
        kind="fixed"
        list={r.fixed}
        omitted={r.omitted.fixed}
      />
    </div>
  );
}
