import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A fresh, empty database on the test server for one test file (or bench run), dropped afterwards.
 * The server comes from SESSIONTREE_TEST_PG_URL (set by `npm test`); without it this throws, so a
 * PostgreSQL suite fails instead of silently skipping.
 */
export async function freshDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.SESSIONTREE_TEST_PG_URL;
  if (!base) {
    throw new Error(
      "SESSIONTREE_TEST_PG_URL is not set: run `npm test`, or start `node scripts/pg.mjs` and export its URL",
    );
  }
  const name = `sessiontree_${label}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    // Database names cannot be parameters; escapeIdentifier quotes the generated name.
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url: url.toString(), drop };
}
