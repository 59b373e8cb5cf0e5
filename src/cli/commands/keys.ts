import { type Command, InvalidArgumentError } from "commander";
import type { ApiKeyRow, ServiceDb } from "../../server/index.js";

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

function storeOptions(command: Command, needsUser = true): Command {
  if (needsUser) command.requiredOption("--user <id>", "the user the keys belong to");
  return command
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "postgres:// URL or sqlite:FILE (env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option("--json", "print JSON");
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90d`, `12h`, `30m`, `45s` → milliseconds (a key's or a token's life). */
export function parseDuration(value: string): number {
  const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(value.trim());
  if (!match?.[1] || !match[2]) throw new InvalidArgumentError("a duration like 90d, 12h, 30m or 45s");
  return Number(match[1]) * (DURATION_UNITS[match[2]] ?? 0);
}

function keyState(row: ApiKeyRow, now: string): string {
  if (row.revokedAt) return `revoked ${row.revokedAt}`;
  if (row.expiresAt && row.expiresAt <= now) return `expired ${row.expiresAt}`;
  return row.expiresAt ? `active until ${row.expiresAt}` : "active";
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
    .option(
      "--expires-in <duration>",
      "refuse the key after this long: 90d, 12h, 30m (default: never)",
      parseDuration,
    )
    .action(async (flags: StoreFlags & { name: string; expiresIn?: number }, command: Command) => {
      const { createApiKey } = await import("../../server/index.js");
      const limits = { maxAgeMs: flags.expiresIn };
      const { key, row } = await withDb(flags, (db) =>
        createApiKey(db, flags.user, flags.name, new Date(), limits),
      );
      if (wantsJson(command))
        console.log(
          JSON.stringify({ key, id: row.id, user: row.userId, name: row.name, expiresAt: row.expiresAt }),
        );
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
      const now = new Date().toISOString();
      for (const r of rows)
        console.log(
          `${r.id}  ${keyState(r, now)}  made ${r.createdAt}  used ${r.lastUsedAt ?? "never"}  ${r.name}`,
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

  registerUserCommands(keys);
}

/**
 * `keys disable-user|enable-user|disabled-users`: refuse a user on every request, whatever the
 * credential (a JWT the issuer keeps signing, keys included), at once and on every instance.
 */
function registerUserCommands(keys: Command): void {
  storeOptions(keys.command("disable-user").description("refuse every request of a user (keys and JWTs)"))
    .option("--reason <text>", "why, kept with the record", "")
    .action(async (flags: StoreFlags & { reason: string }, command: Command) => {
      const row = { userId: flags.user, disabledAt: new Date().toISOString(), reason: flags.reason };
      const done = await withDb(flags, (db) => db.disableUser(row));
      const what = done ? `disabled ${flags.user}` : `${flags.user} was already disabled`;
      console.log(wantsJson(command) ? JSON.stringify({ disabled: flags.user, changed: done }) : what);
    });

  storeOptions(keys.command("enable-user").description("accept a disabled user again")).action(
    async (flags: StoreFlags, command: Command) => {
      const done = await withDb(flags, (db) => db.enableUser(flags.user));
      const what = done ? `enabled ${flags.user}` : `${flags.user} was not disabled`;
      console.log(wantsJson(command) ? JSON.stringify({ enabled: flags.user, changed: done }) : what);
    },
  );

  storeOptions(keys.command("disabled-users").description("list disabled users"), false).action(
    async (flags: StoreFlags, command: Command) => {
      const rows = await withDb(flags, (db) => db.listDisabledUsers());
      if (wantsJson(command)) return console.log(JSON.stringify(rows));
      if (rows.length === 0) console.log("no disabled users");
      for (const r of rows) console.log(`${r.userId}  since ${r.disabledAt}  ${r.reason}`);
    },
  );
}
