import assert from "node:assert/strict";
import { it } from "node:test";
import type { SessionEntry } from "../../../src/core/entry.js";
import { encodeLine } from "../../../src/format/jsonl/encode.js";
import type { WriteOutcome } from "../../../src/store/store.js";
import { make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

/** A custom entry whose `data` nests `depth` objects. */
function deepEntry(id: string, depth: number): SessionEntry {
  let data: unknown = 1;
  for (let i = 0; i < depth; i++) data = { a: data };
  return { type: "custom", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", customType: "x", data };
}

function importText(header: Record<string, unknown>, entries: unknown[]): string {
  return [header, ...entries].map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** The line of a custom entry whose `data` nests `depth` objects (too deep for JSON.stringify). */
function deepLine(id: string, depth: number): string {
  const data = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  return `{"type":"custom","id":"${id}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x","data":${data}}\n`;
}

const HEADER = { type: "session", version: 3, id: "limits", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" };

export function limitsSpec(ctx: SpecContext): void {
  async function fresh() {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    return { owner, id };
  }

  it("refuses entries nested deeper than 64 levels on append and import (no stack overflow)", async () => {
    const { owner, id } = await fresh();
    await rejectsWith(ctx.store().appendEntries(owner, id, [deepEntry("deep", 3000)]), "entry_too_deep");
    await rejectsWith(ctx.store().appendEntries(owner, id, [deepEntry("deep", 70)]), "entry_too_deep");
    const fits = await ctx.store().appendEntries(owner, id, [deepEntry("fits", 60)]);
    assert.deepEqual(fits.appended, ["fits"]);
    // The same 20,000-deep entry twice in one file: the duplicate check compares them first.
    const line = deepLine("twice", 20_000);
    await rejectsWith(
      ctx.store().importJsonl(owner, `${importText(HEADER, [])}${line}${line}`),
      "entry_too_deep",
    );
  });

  it("refuses an entry over 2 MiB of JSON on append and import", async () => {
    const { owner, id } = await fresh();
    const big = {
      ...make.entry("custom", "big", null, { customType: "x" }),
      data: "y".repeat(3 * 1024 * 1024),
    } as SessionEntry;
    await rejectsWith(ctx.store().appendEntries(owner, id, [big]), "entry_too_large");
    await rejectsWith(ctx.store().importJsonl(owner, importText(HEADER, [big])), "entry_too_large");
    assert.equal((await ctx.store().getSummary(owner, id)).entryCount, 0);
  });

  it("refuses a NUL in an entry type and a number that overflows to Infinity, on every backend", async () => {
    const { owner, id } = await fresh();
    const nul = {
      ...make.entry("custom", "nul", null, { customType: "x" }),
      type: "odd\u0000type",
    } as unknown as SessionEntry;
    await rejectsWith(ctx.store().appendEntries(owner, id, [nul]), "invalid_entry");
    const huge = `{"type":"custom","id":"inf","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x","data":1e309}\n`;
    await rejectsWith(ctx.store().importJsonl(owner, `${JSON.stringify(HEADER)}\n${huge}`), "invalid_entry");
    const infinite = {
      ...make.entry("custom", "inf", null, { customType: "x" }),
      data: Number.POSITIVE_INFINITY,
    } as SessionEntry;
    await rejectsWith(ctx.store().appendEntries(owner, id, [infinite]), "invalid_entry");
  });

  it('compares "__proto__" as an ordinary field: a changed one is a duplicate, the same one a retry', async () => {
    const { owner, id } = await fresh();
    const text = (secret: number) =>
      `{"type":"custom","id":"p","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x","__proto__":{"secret":${secret}}}`;
    const first = JSON.parse(text(1)) as SessionEntry;
    assert.deepEqual((await ctx.store().appendEntries(owner, id, [first])).appended, ["p"]);
    assert.deepEqual((await ctx.store().appendEntries(owner, id, [JSON.parse(text(1))])).skipped, ["p"]);
    await rejectsWith(ctx.store().appendEntries(owner, id, [JSON.parse(text(2))]), "duplicate_entry");
    const [stored] = (await ctx.store().loadSession(owner, id)).entries;
    assert.equal(encodeLine(stored as SessionEntry).includes('"__proto__":{"secret":1}'), true);
    const file = `${importText(HEADER, [])}${text(1)}\n${text(2)}\n`;
    await rejectsWith(ctx.store().importJsonl(owner, file), "duplicate_entry");
  });

  it("runs `within` work inside each write, with what it did, and undoes the write when it throws", async () => {
    const { owner, id } = await fresh();
    const seen: Array<WriteOutcome<unknown>> = [];
    const within = (outcome: WriteOutcome<unknown>) => {
      seen.push(outcome);
    };
    const entry = make.user("w1", null, "hello");
    await ctx.store().appendEntries(owner, id, [entry], { within });
    await ctx.store().appendEntries(owner, id, [entry], { within });
    await ctx.store().deleteSession(owner, id, { within });
    await ctx.store().deleteSession(owner, id, { within });
    assert.deepEqual(
      seen.map((o) => [o.changed, o.summary?.revision]),
      [
        [true, 2],
        [false, 2],
        [true, 3],
        [false, 3],
      ],
    );
    assert.equal(seen[0]?.summary?.leafId, "w1");
    await ctx.store().restoreSession(owner, id);
    const refuse = () => {
      throw new Error("refused inside");
    };
    await assert.rejects(
      ctx.store().appendEntries(owner, id, [make.user("w2", "w1", "no")], { within: refuse }),
    );
    if (ctx.store().capabilities.transactions) {
      await assert.rejects(ctx.store().deleteSession(owner, id, { within: refuse }));
      const after = await ctx.store().getSummary(owner, id);
      const state = [after.entryCount, after.deletedAt, after.revision];
      assert.deepEqual(state, [1, null, 4], "nothing of it stayed");
    }
    const created: unknown[] = [];
    const made = await ctx
      .store()
      .createSession(owner, {}, { within: ({ result }) => void created.push(result) });
    assert.deepEqual(created, [made]);
  });
}
