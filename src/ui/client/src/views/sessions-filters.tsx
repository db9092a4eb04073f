import { useEffect, useState } from "preact/hooks";
import type { SessionFilters } from "../api.js";

/** Search box (debounced), status and workflow filters, and the archived toggle. */
export function SessionsFilters({
  filters,
  workflows,
  onChange,
}: {
  filters: SessionFilters;
  workflows: string[];
  onChange: (filters: SessionFilters) => void;
}) {
  const [text, setText] = useState(filters.q);
  useEffect(() => {
    if (text === filters.q) return;
    const timer = setTimeout(() => onChange({ ...filters, q: text, offset: 0 }), 200);
    return () => clearTimeout(timer);
  }, [text]);
  const set = (patch: Partial<SessionFilters>) => onChange({ ...filters, ...patch, offset: 0 });
  return (
    <form class="filters" onSubmit={(event) => event.preventDefault()}>
      <input
        type="search"
        name="q"
        placeholder="Search request, workflow or id"
        value={text}
        onInput={(event) => setText((event.target as HTMLInputElement).value)}
      />
      <select
        name="status"
        value={filters.status}
        onChange={(event) => set({ status: (event.target as HTMLSelectElement).value })}
      >
        <option value="">Any status</option>
        <option value="running">Running</option>
        <option value="success">Success</option>
        <option value="fail">Fail</option>
      </select>
      <select
        name="workflow"
        value={filters.workflow}
        onChange={(event) => set({ workflow: (event.target as HTMLSelectElement).value })}
      >
        <option value="">Any workflow</option>
        {workflows.map((w) => (
          <option key={w} value={w}>
            {w}
          </option>
        ))}
      </select>
      <label class="check">
        <input
          type="checkbox"
          name="archived"
          checked={filters.archived}
          onChange={(event) => set({ archived: (event.target as HTMLInputElement).checked })}
        />
        Show archived
      </label>
    </form>
  );
}
