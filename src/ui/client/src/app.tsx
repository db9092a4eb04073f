import { useEffect } from "preact/hooks";
import { routeHref, useRoute } from "./route.js";
import { CompareView } from "./views/compare-view.js";
import { PhaseView } from "./views/phase-view.js";
import { RunView } from "./views/run-view.js";
import { SessionsView } from "./views/sessions-view.js";
import { UsageView } from "./views/usage-view.js";

/** The viewer: a plain header and one of the views, chosen by the URL hash. */
export function App() {
  const route = useRoute();
  const key = route.view === "run" || route.view === "phase" ? route.adwId : "";
  useEffect(() => window.scrollTo(0, 0), [route.view, key]);
  return (
    <>
      <header class="top">
        <a class="brand" href={routeHref({ view: "sessions" })}>
          sssf trace
        </a>
        <nav class="top-nav">
          <a href={routeHref({ view: "sessions" })}>Sessions</a>
          <a href={routeHref({ view: "usage" })}>Usage</a>
        </nav>
      </header>
      <main>
        {route.view === "sessions" ? <SessionsView /> : null}
        {route.view === "run" ? <RunView key={route.adwId} adwId={route.adwId} /> : null}
        {route.view === "phase" ? (
          <PhaseView key={route.phaseId} adwId={route.adwId} phaseId={route.phaseId} />
        ) : null}
        {route.view === "usage" ? <UsageView /> : null}
        {route.view === "compare" ? (
          <CompareView key={`${route.a}/${route.b}`} a={route.a} b={route.b} />
        ) : null}
      </main>
    </>
  );
}
