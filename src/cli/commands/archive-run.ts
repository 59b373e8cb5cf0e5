import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BlobMaintenance } from "../../store/blob/blob-maintenance.js";
import { defaultBlobLocation, openBlobStore } from "../../store/blob/open-blob-store.js";
import { openStore } from "../../store/registry.js";
import { UsageError } from "../exit.js";
import type { ArchiveFlags } from "./archive.js";

/** The work of `sessiontree archive`: one of archive, restore or collect, on the service's store. */
export async function runArchive(flags: ArchiveFlags): Promise<void> {
  const chosen = [flags.olderThan !== undefined, flags.restore === true, flags.collect === true];
  if (chosen.filter(Boolean).length !== 1) {
    // UsageError, not commander's InvalidArgumentError: thrown from an action, commander's error is
    // taken for one it has already printed (main.ts), and the command exited 2 saying nothing.
    throw new UsageError("give exactly one of --older-than <duration>, --restore, --collect");
  }
  const blobs = await openBlobStore(flags.blobs ?? defaultBlobLocation(flags.data), {
    s3Endpoint: flags.s3Endpoint,
    s3PathStyle: flags.s3PathStyle,
  });
  const store = await openStore(storeLocation(flags), { blobs: { store: blobs } });
  try {
    await store.init();
    const maintenance = (store as { blobs?: BlobMaintenance | null }).blobs;
    if (!maintenance) throw new UsageError(`a ${store.kind} store keeps no blobs: use SQLite or PostgreSQL`);
    const report = await work(maintenance, flags);
    console.log(flags.json ? JSON.stringify(report) : report.line);
  } finally {
    await store.close();
    await blobs.close();
  }
}

async function work(
  maintenance: BlobMaintenance,
  flags: ArchiveFlags,
): Promise<{ line: string; [key: string]: unknown }> {
  if (flags.restore) {
    const restored = await maintenance.restoreAll();
    return { restored, line: `restored ${plural(restored)}` };
  }
  if (flags.collect) {
    const { unreferenced, orphans } = await maintenance.collect();
    return { unreferenced, orphans, line: `deleted ${unreferenced + orphans} blob(s)` };
  }
  const cutoff = new Date(Date.now() - (flags.olderThan ?? 0));
  const { archived } = await maintenance.archive(cutoff);
  const bytes = archived.reduce((sum, session) => sum + session.bytes, 0);
  return {
    archived,
    line: `archived ${plural(archived.length)} (${bytes.toLocaleString("en")} bytes compressed)`,
  };
}

function plural(n: number): string {
  return `${n} session${n === 1 ? "" : "s"}`;
}

/** As the service finds its store: `--database`, else SQLite in the data folder. */
function storeLocation(flags: ArchiveFlags): string {
  if (flags.database) return flags.database;
  mkdirSync(flags.data, { recursive: true });
  return `sqlite:${join(resolve(flags.data), "sessiontree.db")}`;
}
