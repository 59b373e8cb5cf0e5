/**
 * Versioned schema migrations, run the same way on every database: a `sessiontree_migrations`
 * table lists the versions applied; `init()` applies the missing ones in order, each in the same
 * transaction as its row in that table, so a crash never leaves a half-applied step, and running
 * `init()` again (or from a second process) applies nothing twice.
 */
export interface Migration {
  /** 1, 2, 3…: never renumbered, never edited once released. */
  version: number;
  name: string;
  /** Plain DDL, no values: each runs as one statement. */
  statements: readonly string[];
}

/** The migrations still to apply, in order. Refuses a database newer than this code. */
export function pendingMigrations(all: readonly Migration[], applied: ReadonlySet<number>): Migration[] {
  const known = new Set(all.map((m) => m.version));
  for (const version of applied) {
    if (!known.has(version)) {
      throw new Error(
        `The database has schema version ${version}, which this sessiontree does not know: upgrade it`,
      );
    }
  }
  return all.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
}
