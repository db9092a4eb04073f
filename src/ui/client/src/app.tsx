import { useEffect } from "preact/hooks";
import { routeHref, useRoute } from "./route.js";
import { PhaseView } from "./views/phase-view.js";
import { RunView } from "./views/run-view.js";
import { SessionsView } from "./views/sessions-view.js";

/** The viewer: a plain header and one of the three views, chosen by the URL hash. */
export function App() {
  const route = useRoute();
  useEffect(() => window.scrollTo(0, 0), [route.view, route.view === "sessions" ? "" : route.adwId]);
  return (
    <>
      <header class="top">
        <a class="brand" href={routeHref({ view: "sessions" })}>
          sssf trace
        </a>
      </header>
      <main>
        {route.view === "sessions" ? <SessionsView /> : null}
        {route.view === "run" ? <RunView key={route.adwId} adwId={route.adwId} /> : null}
        {route.view === "phase" ? (
          <PhaseView key={route.phaseId} adwId={route.adwId} phaseId={route.phaseId} />
        ) : null}
      </main>
    </>
  );
}
