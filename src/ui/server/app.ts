import { Hono } from "hono";
import { apiRoutes } from "./api-routes.js";
import type { ColorScheme, LiveSubscription } from "./api-types.js";
import { requestGuard, securityHeaders } from "./guard/security.js";
import { type ServedHosts, servedHosts } from "./guard/served-hosts.js";
import { SESSION_ID } from "./guard/session-guard.js";
import { LiveHub, type LiveHubOptions } from "./live-hub.js";
import type { MergeTarget } from "./merge-routes.js";
import { sseResponse } from "./sse-stream.js";
import { defaultClientDir, loadStaticFiles } from "./static-files.js";

/** Options of {@link createUiApp}. */
export interface UiAppOptions {
  /** The trace database; opened read-only (the archive flag uses its own short-lived connection). */
  dbPath: string;
  /** `<data_dir>/sessions`, where the saved prompts are read from. */
  sessionsDir: string;
  /** Lane colors (default: no configured agents, the given palette or none). */
  scheme?: ColorScheme;
  /** The addresses requests may name in `Host` and `Origin` (default: those of a 127.0.0.1 binding). */
  served?: ServedHosts;
  /** The built client (default {@link defaultClientDir}). */
  clientDir?: string;
  hub?: LiveHubOptions;
  /** Where the Merge button lands runs (`sssf ui`: its checkout and config); without it there is no merge route. */
  merge?: MergeTarget;
}

/** The UI as a Hono app, with the live hub it owns. `close()` ends live streams and the connection. */
export interface UiApp {
  app: Hono;
  hub: LiveHub;
  close(): Promise<void>;
}

// Ids in paths and queries are plain tokens, phases' as sessions'.
const SAFE_ID = SESSION_ID;

/**
 * Builds the UI server: security headers on every response and `requestGuard` (Host, Origin,
 * same-origin writes) in front of every route, the JSON API under
 * `/api`, the live stream at `/api/live?adw=<id>&phase=<id>`, and the prebuilt client.
 * Contract: rejects with SssfError("usage") naming the path when the database is missing or not a trace;
 * nothing else. Works with `app.request()` without a listening socket.
 * @example
 * const ui = await createUiApp({ dbPath: "adws/adw_data/sssf.db", sessionsDir: "adws/adw_data/sessions" });
 * const response = await ui.app.request("/api/sessions");
 */
export async function createUiApp(options: UiAppOptions): Promise<UiApp> {
  const hub = await LiveHub.open(options.dbPath, options.hub);
  const scheme = options.scheme ?? { colors: {}, palette: [] };
  const files = loadStaticFiles(options.clientDir ?? defaultClientDir());
  const app = new Hono();
  app.use(securityHeaders());
  app.use(requestGuard(options.served ?? servedHosts("127.0.0.1")));
  app.onError((error, c) => c.json({ error: `internal error: ${error.message || error.name}` }, 500));

  app.get("/api/live", (c) => {
    const adw = c.req.query("adw") || null;
    const phase = c.req.query("phase") || null;
    if ((adw !== null && !SAFE_ID.test(adw)) || (phase !== null && (adw === null || !SAFE_ID.test(phase)))) {
      return c.json({ error: "adw and phase must be ids; phase needs adw" }, 400);
    }
    const subscription: LiveSubscription = { adwId: adw, phaseId: phase };
    return sseResponse(hub, subscription, c.req.raw.signal);
  });
  app.route(
    "/api",
    apiRoutes({
      hub,
      dbPath: options.dbPath,
      sessionsDir: options.sessionsDir,
      scheme,
      merge: options.merge ?? null,
    }),
  );

  // A shareable comparison address: the client routes by hash, so send the browser there.
  app.get("/compare/:a/:b", (c) => {
    const a = c.req.param("a");
    const b = c.req.param("b");
    if (!SAFE_ID.test(a) || !SAFE_ID.test(b)) return c.json({ error: "expected two session ids" }, 400);
    return c.redirect(`/#/compare/${a}/${b}`, 302);
  });

  app.get("*", (c) => {
    const file = files.get(c.req.path === "/" ? "/index.html" : c.req.path);
    if (file === undefined) {
      if (files.size === 0) {
        return c.text("The UI client is not built: run `npm run build` in the sssf checkout.", 503);
      }
      return c.text("not found", 404);
    }
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200, {
      "content-type": file.type,
      "cache-control": file.cacheControl,
    });
  });

  return { app, hub, close: () => hub.close() };
}
