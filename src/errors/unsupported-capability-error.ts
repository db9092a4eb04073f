import { SssfError } from "./sssf-error.js";

/** A runtime was asked for an optional ability it does not have. */
export class UnsupportedCapabilityError extends SssfError {
  constructor(runtime: string, capability: string) {
    super("unsupported_capability", `runtime ${runtime} does not support ${capability}`);
    this.name = "UnsupportedCapabilityError";
  }
}
