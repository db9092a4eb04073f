/**
 * The zod sssf validates with, as its own entry (`dist/zod.js`): a repo-local workflow's
 * `import { z } from "zod"` resolves here when the repo has no zod, so its schemas and sssf's are one
 * copy of zod (`import { z } from "sssf"` is the typed way to the same).
 */
export * from "zod";
export { z as default } from "zod";
