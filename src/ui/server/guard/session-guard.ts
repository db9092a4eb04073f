import type { MiddlewareHandler } from "hono";
import type { SessionRow } from "../../../trace/events.js";
import type { Versioned } from "../api-types.js";
import type { LiveHub } from "../live-hub.js";
import { readSession } from "../session-queries.js";

/** What an adw_id in a path may look like: a plain token (ids become folder names). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The Hono env of routes under `/sessions/:adwId`: the session the guard found. */
export interface SessionEnv {
  Variables: { session: Versioned<SessionRow> };
}

/**
 * The one rule for every route under `/sessions/:adwId` (the session and all its sub-resources,
 * reads and writes): an id that is not a plain token is a 400 naming `adw_id` (path tricks never
 * reach the database or the file system), an id no session has is a 404, else the session is in
 * `c.get("session")`.
 */
export function sessionGuard(hub: LiveHub): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const adwId = c.req.param("adwId") ?? "";
    if (!SESSION_ID.test(adwId)) {
      const shown = JSON.stringify(adwId.slice(0, 80));
      return c.json(
        { error: `adw_id: expected a session id (letters, digits, "_", "-", "."), got ${shown}` },
        400,
      );
    }
    const session = await readSession(hub.db, adwId);
    if (session === undefined) return c.json({ error: `no such session: ${adwId}` }, 404);
    c.set("session", session);
    await next();
  };
}
