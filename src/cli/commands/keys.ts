import type { Command } from "commander";
import type { ServiceDb } from "../../server/index.js";

interface StoreFlags {
  user: string;
  data: string;
  database?: string;
}

/** Opens the service's database for one piece of work. Loaded on use: it brings SQLite or pg. */
async function withDb<T>(flags: StoreFlags, work: (db: ServiceDb) => Promise<T>): Promise<T> {
  const { openServiceDb } = await import("../../server/index.js");
  const db = await openServiceDb({ data: flags.data, database: flags.database });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

function storeOptions(command: Command): Command {
  return command
    .requiredOption("--user <id>", "the user the keys belong to")
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "postgres:// URL or sqlite:FILE (env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option("--json", "print JSON");
}

/** SESSIONTREE_DATABASE, unless unset or empty (`SESSIONTREE_DATABASE=` means "not set"). */
export function databaseFromEnv(): string | undefined {
  return process.env.SESSIONTREE_DATABASE || undefined;
}

/**
 * `--json` is also the program's global option, which commander gives the program when it is
 * written after the subcommand: read it with the globals.
 */
function wantsJson(command: Command): boolean {
  return command.optsWithGlobals<{ json?: boolean }>().json === true;
}

/** `sessiontree keys create|list|revoke --user U`: API keys, in the database `serve` uses. */
export function register(program: Command): void {
  const keys = program.command("keys").description("manage API keys of the session service");

  storeOptions(keys.command("create").description("create an API key (shown once: store it now)"))
    .option("--name <name>", "what the key is for", "")
    .action(async (flags: StoreFlags & { name: string }, command: Command) => {
      const { createApiKey } = await import("../../server/index.js");
      const { key, row } = await withDb(flags, (db) => createApiKey(db, flags.user, flags.name));
      if (wantsJson(command))
        console.log(JSON.stringify({ key, id: row.id, user: row.userId, name: row.name }));
      else console.log(`${key}\n(id ${row.id} for user ${row.userId}: the key is not shown again)`);
    });

  storeOptions(keys.command("list").description("list a user's keys (never the secrets)")).action(
    async (flags: StoreFlags, command: Command) => {
      const rows = await withDb(flags, (db) => db.listKeys(flags.user));
      if (wantsJson(command)) {
        console.log(JSON.stringify(rows.map(({ keyHash: _hash, ...row }) => row)));
        return;
      }
      if (rows.length === 0) console.log(`no keys for ${flags.user}`);
      for (const r of rows)
        console.log(
          `${r.id}  ${r.revokedAt ? `revoked ${r.revokedAt}` : "active"}  ${r.createdAt}  ${r.name}`,
        );
    },
  );

  storeOptions(keys.command("revoke").description("revoke a key: refused at once, by every server"))
    .argument("<keyId>", "the key's id (the part after st_), or the whole key")
    .action(async (keyId: string, flags: StoreFlags, command: Command) => {
      const id = /^st_([0-9a-f]{12})_/.exec(keyId)?.[1] ?? keyId;
      const done = await withDb(flags, (db) => db.revokeKey(flags.user, id, new Date().toISOString()));
      if (!done) {
        console.error(`no active key ${id} for user ${flags.user}`);
        process.exitCode = 1;
        return;
      }
      console.log(wantsJson(command) ? JSON.stringify({ revoked: id }) : `revoked ${id}`);
    });
}
