// Preloaded into sssf by the OpenTelemetry tests (NODE_OPTIONS=--import): appends every module of
// @opentelemetry that the process resolves, by require() or import, to $SSSF_TEST_MODULE_LOG.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const log = process.env.SSSF_TEST_MODULE_LOG;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (log && resolved.url.includes("/@opentelemetry/"))
      appendFileSync(log, `${process.pid} ${resolved.url}\n`);
    return resolved;
  },
});
