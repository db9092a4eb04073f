import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { LiveDelta, LiveHello } from "../../server/api-types.js";

/** What {@link useLive} needs: the stream to watch, how to load a snapshot and fold a delta into it. */
export interface LiveOptions<S> {
  adwId: string | null;
  phaseId: string | null;
  load: () => Promise<S>;
  /** Pure: the state with the delta's rows and count increments applied. */
  apply: (state: S, delta: LiveDelta) => S;
}

/** The live state of a view. `reload()` fetches a fresh snapshot (after a filter change). */
export interface LiveState<S> {
  data: S | null;
  error: string | null;
  reload: () => void;
  /** Replaces the state (a page of earlier rows, re-read prompts). */
  update: (change: (state: S) => S) => void;
}

/**
 * Keeps a view's data live. The snapshot and the `api/live` stream start together; deltas that
 * arrive before the snapshot are buffered and folded in after it. A snapshot older than the stream's
 * `hello` tick may miss the ticks in between, so it is loaded again; so is one after a reconnect or a
 * `reset`. Row versions and ticks make the order of snapshot and deltas irrelevant (api-types.ts).
 */
export function useLive<S extends { tick: number }>(options: LiveOptions<S>): LiveState<S> {
  const [data, setData] = useState<S | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(options);
  latest.current = options;
  const loader = useRef<() => void>(() => {});

  // A layout effect starts the requests right after the first render; a plain effect waits for the
  // next animation frame, up to 100 ms later.
  useLayoutEffect(() => {
    let disposed = false;
    let generation = 0;
    let buffer: LiveDelta[] | null = null;
    let hello: number | null = null;
    let pending: S | null = null;
    setData(null);
    const settle = () => {
      if (pending === null || hello === null) return;
      const snapshot = pending;
      pending = null;
      if (snapshot.tick < hello) {
        load();
        return;
      }
      let state = snapshot;
      for (const delta of buffer ?? []) state = latest.current.apply(state, delta);
      buffer = null;
      setError(null);
      setData(state);
    };
    const load = () => {
      const mine = ++generation;
      buffer ??= [];
      pending = null;
      latest.current.load().then(
        (snapshot) => {
          if (disposed || mine !== generation) return;
          pending = snapshot;
          settle();
        },
        (failure: unknown) => {
          if (disposed || mine !== generation) return;
          buffer = null;
          setError(failure instanceof Error ? failure.message : String(failure));
        },
      );
    };
    loader.current = load;
    const params = new URLSearchParams();
    if (options.adwId) params.set("adw", options.adwId);
    if (options.phaseId) params.set("phase", options.phaseId);
    const source = new EventSource(`api/live?${params}`);
    source.addEventListener("hello", (event) => {
      const reconnect = hello !== null;
      hello = (JSON.parse((event as MessageEvent<string>).data) as LiveHello).tick;
      // After a reconnect ticks may have been missed: load again. The first hello settles the first load.
      if (reconnect) load();
      else settle();
    });
    source.addEventListener("reset", () => load());
    source.addEventListener("delta", (event) => {
      const delta = JSON.parse((event as MessageEvent<string>).data) as LiveDelta;
      if (buffer !== null) {
        buffer.push(delta);
        return;
      }
      setData((current) => (current === null ? current : latest.current.apply(current, delta)));
    });
    load();
    return () => {
      disposed = true;
      source.close();
    };
  }, [options.adwId, options.phaseId]);

  const reload = useCallback(() => loader.current(), []);
  const update = useCallback((change: (state: S) => S) => {
    setData((current) => (current === null ? current : change(current)));
  }, []);
  return { data, error, reload, update };
}

/** `Date.now()` refreshed every `intervalMs` while `active`, so running bars and durations grow. */
export function useNow(active: boolean, intervalMs = 500): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return active ? now : Date.now();
}
