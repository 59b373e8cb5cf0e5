import { after } from "node:test";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { runConformance } from "./conformance/index.js";
import { freshDatabase } from "./pg-database.js";

// Top-level await: without SESSIONTREE_TEST_PG_URL the file fails to load, so the suite fails, never skips.
const database = await freshDatabase("conformance");
after(() => database.drop());

runConformance({
  name: "postgres",
  create: async () => new PostgresStore({ connectionString: database.url }),
  capabilities: { persistent: true },
});
