import { describeExecutorContract, restateExecutor } from "../engine/executor-contract.js";
import { sharedRestate } from "./cluster-world.js";

// The Restate cluster: real restate-server (one for the file), real pool and worker processes.
const restate = sharedRestate();
describeExecutorContract("restate", () => restateExecutor(restate));
