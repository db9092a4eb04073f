/**
 * One wrong or missing field. `path` reads like code (`findings[0].met`, `status`); it is "" when the
 * problem concerns the whole reply, such as no JSON object being found at all.
 */
export interface EnvelopeProblem {
  path: string;
  message: string;
}
