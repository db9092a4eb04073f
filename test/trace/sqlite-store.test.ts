import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqliteStore } from "../../src/trace/sqlite/sqlite-store.js";
import { describeTraceStoreContract } from "./store-contract.js";

describeTraceStoreContract("SQLite", {
  async fresh() {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sssf-sqlite-store-"));
    return {
      location: path.join(dir, "trace", "sssf.db"),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  async raw(location) {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.dirname(location), { recursive: true });
    return openSqliteStore(location);
  },
});
