import { ValidationError } from "../core/errors.js";
import type { JsonlStoreOptions } from "./jsonl/jsonl-store-config.js";
import type { PostgresStoreOptions } from "./postgres/postgres-config.js";
import { redactPassword } from "./redact-location.js";
import type { SqliteStoreOptions } from "./sqlite/sqlite-config.js";
import type { SessionStore } from "./store.js";

/**
 * A kind of store, as the service and the CLI pick one: by a location (a URL or a prefixed path)
 * and options only that backend knows (a shared connection or pool, a durability level). A backend's
 * module, and the database driver behind it, load only when a store of that kind is opened.
 *
 * @example
 * const store = await openStore(process.env.SESSIONTREE_STORE ?? "sqlite:data/sessions.db");
 * await store.init();
 */
export interface StoreBackend<Options = Record<string, unknown>> {
  /** "memory", "jsonl", "sqlite", "postgres". */
  readonly kind: string;
  /** One line for help text. */
  readonly description: string;
  /** The location forms it accepts, for help text. */
  readonly locations: readonly string[];
  /** Whether `location` names a store of this kind. */
  accepts(location: string): boolean;
  /** A store at `location`, not initialised yet (call `init()`). */
  open(location: string, options?: Options): Promise<SessionStore>;
}

export const memoryBackend: StoreBackend<Record<string, never>> = {
  kind: "memory",
  description: "in memory, nothing kept (tests, demos)",
  locations: ["memory:"],
  accepts: (location) => location === "memory:" || location === "memory",
  async open() {
    const { MemoryStore } = await import("./memory/memory-store.js");
    return new MemoryStore();
  },
};

export const jsonlBackend: StoreBackend<Omit<JsonlStoreOptions, "root">> = {
  kind: "jsonl",
  description: "pi-format JSONL files in a folder (one machine)",
  locations: ["jsonl:<folder>"],
  accepts: (location) => location.startsWith("jsonl:") && location.length > "jsonl:".length,
  async open(location, options = {}) {
    const { JsonlStore } = await import("./jsonl/jsonl-store.js");
    return new JsonlStore({ ...options, root: location.slice("jsonl:".length) });
  },
};

export const sqliteBackend: StoreBackend<Omit<SqliteStoreOptions, "path">> = {
  kind: "sqlite",
  description: "one SQLite file (the embedded default)",
  locations: ["sqlite:<file>", "<file>.db", "<file>.sqlite", "<file>.sqlite3"],
  accepts: (location) => location.startsWith("sqlite:") || /\.(db|sqlite3?)$/.test(location),
  async open(location, options = {}) {
    const { SqliteStore } = await import("./sqlite/sqlite-store.js");
    const path = location.startsWith("sqlite:") ? location.slice("sqlite:".length) : location;
    return new SqliteStore({ ...options, path: path || ":memory:" });
  },
};

export const postgresBackend: StoreBackend<Omit<PostgresStoreOptions, "connectionString">> = {
  kind: "postgres",
  description: "PostgreSQL, shared by several server instances",
  locations: ["postgres://…", "postgresql://…"],
  accepts: (location) => /^postgres(ql)?:\/\//.test(location),
  async open(location, options = {}) {
    const { PostgresStore } = await import("./postgres/postgres-store.js");
    return new PostgresStore({ ...options, connectionString: location });
  },
};

const registered = new Map<string, StoreBackend>(
  [memoryBackend, jsonlBackend, sqliteBackend, postgresBackend].map((b) => [b.kind, b]),
);

/** Adds a backend (a driver of your own behind `EngineStore`). A kind already taken is refused. */
export function registerStoreBackend<Options>(backend: StoreBackend<Options>): void {
  if (registered.has(backend.kind)) {
    throw new ValidationError("invalid_argument", `A store backend "${backend.kind}" is already registered`);
  }
  registered.set(backend.kind, backend as StoreBackend);
}

/** Every registered backend, built-in ones first. */
export function storeBackends(): StoreBackend[] {
  return [...registered.values()];
}

/**
 * The backend whose location `location` is, or `invalid_argument` naming the forms there are. The
 * location is shown without its password: a mistyped database URL still holds a real one, and
 * this message ends up on stderr, in the journal, in CI logs.
 */
export function resolveStoreBackend(location: string): StoreBackend {
  for (const backend of registered.values()) if (backend.accepts(location)) return backend;
  const forms = storeBackends().flatMap((backend) => backend.locations);
  const shown = redactPassword(location);
  throw new ValidationError(
    "invalid_argument",
    `No store backend takes ${JSON.stringify(shown)}: use ${forms.join(", ")}`,
    { details: { location: shown } },
  );
}

/** Opens (without `init()`) a store at `location` with the options its backend knows. */
export async function openStore(location: string, options?: Record<string, unknown>): Promise<SessionStore> {
  return resolveStoreBackend(location).open(location, options);
}
