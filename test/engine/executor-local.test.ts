import { describeExecutorContract, localExecutor } from "./executor-contract.js";

// The local durable run: `sssf run` in the checkout, `sssf resume` after a crash.
describeExecutorContract("local", localExecutor);
