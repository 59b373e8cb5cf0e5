/**
 * A fresh PostgreSQL database for a bench: on SESSIONTREE_TEST_PG_URL's server when set, else on a
 * throwaway cluster started here (scripts/pg.mjs). `stop` drops the database and the cluster.
 */
import { freshDatabase } from "../test/store/pg-database.js";

export async function postgresUrl(name = "bench"): Promise<{ url: string; stop: () => Promise<void> }> {
  let stopServer = () => {};
  if (!process.env.SESSIONTREE_TEST_PG_URL) {
    const pgModule = "../scripts/pg.mjs";
    const { startPostgres } = (await import(pgModule)) as {
      startPostgres: () => Promise<{ url: string; stop: () => void }>;
    };
    const server = await startPostgres();
    process.env.SESSIONTREE_TEST_PG_URL = server.url;
    stopServer = () => {
      server.stop();
      delete process.env.SESSIONTREE_TEST_PG_URL;
    };
  }
  const database = await freshDatabase(name);
  return {
    url: database.url,
    stop: async () => {
      await database.drop();
      stopServer();
    },
  };
}
