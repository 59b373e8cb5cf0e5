import { after, it } from "node:test";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { freshDatabase } from "./pg-database.js";
import { twoWriters } from "./two-writers.js";

const database = await freshDatabase("concurrency");
after(() => database.drop());

it("two processes appending to one PostgreSQL session with expected revisions lose nothing", async () => {
  const store = new PostgresStore({ connectionString: database.url });
  await store.init();
  try {
    const { acks, conflicts } = await twoWriters("postgres", database.url, store, 150);
    console.log(`# ${acks} acknowledged appends, ${conflicts} conflicts reported and retried`);
  } finally {
    await store.close();
  }
});

it("two processes appending under the leaf to one PostgreSQL session form one chain, without conflicts", async () => {
  const store = new PostgresStore({ connectionString: database.url });
  await store.init();
  try {
    const { acks } = await twoWriters("postgres", database.url, store, 150, 0, "under-leaf");
    console.log(`# ${acks} appends under the leaf, one chain`);
  } finally {
    await store.close();
  }
});
