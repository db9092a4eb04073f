import { PgStore } from "../../src/trace/postgres/pg-store.js";
import { createTestDatabase, describePostgres } from "../helpers/postgres.js";
import { describeTraceStoreContract } from "../trace/store-contract.js";

// Without SSSF_TEST_POSTGRES_URL the suite is skipped (SSSF_REQUIRE_POSTGRES=1 fails instead: helpers/postgres.ts).
describePostgres("PostgreSQL store (SSSF_TEST_POSTGRES_URL)", () => {
  describeTraceStoreContract("PostgreSQL", {
    async fresh() {
      const database = await createTestDatabase();
      return { location: database.url, cleanup: () => database.drop() };
    },
    async raw(location) {
      const store = new PgStore(location);
      await store.bootstrap();
      return store;
    },
  });
});
