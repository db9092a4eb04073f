/** The code of errors that mean "the trace database is out of reach now": retry later, nothing was lost. */
export const DB_UNAVAILABLE = "SSSF_DB_UNAVAILABLE";

/** An error carrying {@link DB_UNAVAILABLE}. */
export function unavailableError(why: string): Error {
  return Object.assign(new Error(`trace database unavailable: ${why}`), { code: DB_UNAVAILABLE });
}

/** A lost connection, however it was reported: the caller may retry later. Never throws. */
export function isUnavailable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === DB_UNAVAILABLE;
}
