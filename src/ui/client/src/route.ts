import { useEffect, useState } from "preact/hooks";

/** The views, addressed by the URL hash. */
export type Route =
  | { view: "sessions" }
  | { view: "run"; adwId: string }
  | { view: "phase"; adwId: string; phaseId: string }
  | { view: "usage" }
  | { view: "compare"; a: string; b: string };

/** The route of a hash such as `#/run/a1b2c3d4/phase/a1b2c3d4-p02`; anything else is the sessions list. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "run" && parts[1]) {
    if (parts[2] === "phase" && parts[3]) return { view: "phase", adwId: parts[1], phaseId: parts[3] };
    return { view: "run", adwId: parts[1] };
  }
  if (parts[0] === "usage") return { view: "usage" };
  if (parts[0] === "compare" && parts[1] && parts[2]) return { view: "compare", a: parts[1], b: parts[2] };
  return { view: "sessions" };
}

/** The hash of a route. */
export function routeHref(route: Route): string {
  if (route.view === "sessions") return "#/";
  if (route.view === "usage") return "#/usage";
  if (route.view === "compare")
    return `#/compare/${encodeURIComponent(route.a)}/${encodeURIComponent(route.b)}`;
  const run = `#/run/${encodeURIComponent(route.adwId)}`;
  return route.view === "run" ? run : `${run}/phase/${encodeURIComponent(route.phaseId)}`;
}

const listeners = new Set<() => void>();

/** The current route, following hash changes (links, back and forward) and {@link navigate}. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    listeners.add(update);
    window.addEventListener("hashchange", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("hashchange", update);
    };
  }, []);
  return route;
}

/**
 * Goes to `route` as a new history entry, rendering it at once: a `hashchange` event would only
 * arrive after the browser is done with the current frame.
 */
export function navigate(route: Route): void {
  window.history.pushState(null, "", routeHref(route));
  for (const listener of listeners) listener();
}
