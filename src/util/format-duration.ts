/** `500ms`, `5s`, `1.5s`: a timeout or an elapsed time in an agent's error message. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${Number((ms / 1000).toFixed(1))}s`;
}
