import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { sessionDirFor, sessionsDir } from "../../src/file/paths.js";
import { indexPathFor } from "../../src/file/sidecar-index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { INLINE_TEXTS, LoadedSession, TEXT_PAGE } from "../../src/viewer/loaded-session.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { looksPathFor } from "../../src/viewer/looks-cache.js";
import { diffOf, statsOf } from "../../src/viewer/session-insights.js";
import { attachedView } from "../../src/viewer/session-view.js";
import type { ViewerSession } from "../../src/viewer/source.js";
import { messageMaker } from "../support/messages.js";

const CWD = "/home/dev/indexed";

/**
 * A branchy session past INLINE_TEXTS entries, written by the real SessionManager: tool calls and
 * results (some failed), assistant errors and aborts, bash runs, abandoned branches (some with a
 * summary), compactions, labels set, moved and cleared, two names, extension state and messages,
 * setting changes, leaf markers left hidden by later appends, and at the end one that pi built on.
 */
function writeBranchySession(root: string): { path: string; marker: string } {
  const { user, assistant, toolResult } = messageMaker(1_770_000_000_000);
  const sm = SessionManager.create(CWD, sessionDirFor(root, CWD, "sessiontree"), { root });
  sm.appendModelChange("anthropic", "claude-sonnet-4-5");
  sm.appendThinkingLevelChange("medium");
  const prompts: string[] = [];
  for (let round = 0; round < 1300; round++) {
    const prompt = sm.appendMessage(user(`Prompt ${round}: "do" the \\ step ${round}`));
    prompts.push(prompt);
    const id = `call_${round}`;
    const call = assistant(`Working on ${round}.`, {
      content: [
        { type: "text", text: `Working on ${round}.` },
        { type: "toolCall", id, name: "read", arguments: { path: `src/f${round}.ts` } },
      ],
      stopReason: "toolUse",
    });
    sm.appendMessage(call);
    sm.appendMessage(toolResult(id, "read", `contents of f${round} with "quotes"`, round % 7 === 3));
    if (round % 11 === 5)
      sm.appendMessage(assistant("", { stopReason: "error", errorMessage: `boom ${round}` }));
    else if (round % 13 === 6) sm.appendMessage(assistant(`half ${round}`, { stopReason: "aborted" }));
    else sm.appendMessage(assistant(`Done with ${round}.`));
    if (round % 17 === 2)
      sm.appendMessage({
        role: "bashExecution",
        command: `ls ${round}`,
        output: "a b",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 1,
      } as never);
    if (round % 25 === 9) sm.appendCustomEntry("my.ext", { round });
    if (round % 29 === 4) sm.appendCustomMessageEntry("my.note", `note ${round}`, true);
    if (round % 40 === 10) sm.appendLabelChange(prompt, `label ${round}`);
    if (round % 120 === 50) sm.appendLabelChange(prompts[round - 40] as string, "");
    if (round % 90 === 60) sm.appendLabelChange(prompts[10] as string, `moved ${round}`);
    if (round % 60 === 30) sm.appendModelChange("openai", `gpt-${round}`);
    if (round % 50 === 49)
      sm.appendCompaction(`COMPACTED up to ${round}`, prompts[round - 3] as string, 1000 + round);
    if (round === 400) sm.appendSessionInfo("First name");
    if (round === 900) sm.appendSessionInfo("  Second name  ");
    if (round % 30 === 20) {
      // An abandoned branch: back to an earlier prompt (a leaf marker), then on from there.
      if (round % 60 === 20) sm.branchWithSummary(prompts[round - 2] as string, `SUMMARY of ${round}`);
      else sm.branch(prompts[round - 1] as string);
    }
  }
  const path = sm.getSessionFile() as string;
  sm.branch(prompts[1200] as string);
  sm.close();
  // pi appends under the last line (our trailing marker): the marker becomes an ordinary entry.
  const lines = readFileSync(path, "utf8").trimEnd().split("\n");
  const marker = JSON.parse(lines[lines.length - 1] as string) as { id: string; customType: string };
  assert.equal(marker.customType, "sessiontree.leaf");
  const below = {
    type: "message",
    id: "pi000001",
    parentId: marker.id,
    timestamp: new Date().toISOString(),
    message: user("pi wrote this"),
  };
  appendFileSync(path, `${JSON.stringify(below)}\n`);
  return { path, marker: marker.id };
}

describe("a session file served through its sidecar index", () => {
  let base: string;
  let root: string;
  let path: string;
  let key: string;
  let leafMarker: string;

  before(() => {
    base = mkdtempSync(join(tmpdir(), "sessiontree-indexed-viewer-"));
    process.env.SESSIONTREE_CACHE_DIR = join(base, "cache");
    root = join(base, "root");
    ({ path, marker: leafMarker } = writeBranchySession(root));
    key = `sessiontree:${relative(sessionsDir(root), path)}`;
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const open = async (wholeRead: boolean): Promise<{ session: ViewerSession; loaded: LoadedSession }> => {
    const session = await createLocalSource({ root, piDir: null, wholeRead }).loadSession(key);
    return { session, loaded: LoadedSession.of(session) };
  };
  /** The viewer writes a new index and its looks after it answers: one turn of the event loop. */
  const saved = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** Every answer the viewer's routes give, compared as the JSON they are sent as. */
  async function assertSameAnswers(indexed: LoadedSession, whole: LoadedSession): Promise<void> {
    assert.ok(indexed.size > INLINE_TEXTS, "large enough to be served through the index");
    assert.equal(indexed.size, whole.size);
    assert.equal(indexed.openingJson(200), whole.openingJson(200), "the shape and the leaf's context");
    assert.equal(indexed.openingJson(3), whole.openingJson(3));
    for (let from = 0; from <= whole.size; from += TEXT_PAGE - 7) {
      assert.deepEqual(indexed.textsOf(from, from + TEXT_PAGE), whole.textsOf(from, from + TEXT_PAGE));
    }
    assert.deepEqual(
      indexed.textsOf(whole.size + 3, whole.size + 9),
      whole.textsOf(whole.size + 3, whole.size + 9),
    );
    const shape = JSON.parse(whole.shapeJson()) as { ids: string[]; looks: string };
    const pages = [{ tail: 5 }, { tail: 3, before: 4 }];
    const seen = new Map<string, number>();
    shape.ids.forEach((id, node) => {
      // Every 61st node, and the first few of each look (all compactions and branch summaries).
      const look = shape.looks[node] as string;
      seen.set(look, (seen.get(look) ?? 0) + 1);
      if (node % 61 !== 0 && (seen.get(look) as number) > 4 && !"fg".includes(look)) return;
      assert.equal(indexed.has(id), true);
      for (const page of node % 10 === 0 ? [...pages, {}, { before: 0 }] : pages) {
        assert.equal(
          JSON.stringify(indexed.select(id, page)),
          JSON.stringify(whole.select(id, page)),
          `${id} ${JSON.stringify(page)}`,
        );
      }
    });
    for (const missing of [leafMarkerHidden(), "no-such-id"]) {
      assert.equal(indexed.has(missing), whole.has(missing));
      assert.throws(
        () => indexed.select(missing, {}),
        errorOf(() => whole.select(missing, {})),
      );
    }
  }

  /** A leaf marker that nothing was appended under: hidden from the shape, not selectable. */
  function leafMarkerHidden(): string {
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    const markers = lines
      .map((line) => JSON.parse(line) as { id: string; customType?: string })
      .filter((entry) => entry.customType === "sessiontree.leaf" && entry.id !== leafMarker);
    assert.ok(markers.length > 5, "the session has hidden leaf markers");
    return (markers[0] as { id: string }).id;
  }

  it("answers exactly as the whole read, with no index yet and with the index it saved", async () => {
    const whole = await open(true);
    assert.equal(attachedView(whole.session), undefined, "read whole");
    rmSync(indexPathFor(path), { force: true });
    const first = await open(false);
    assert.ok(attachedView(first.session), "served through the index");
    assert.equal(existsSync(indexPathFor(path)), false, "the index is written after the answer");
    await saved();
    assert.equal(existsSync(indexPathFor(path)), true, "then written");
    assert.equal(
      JSON.parse(first.loaded.shapeJson()).ids.includes(leafMarker),
      true,
      "a marker built on is shown",
    );
    await assertSameAnswers(first.loaded, whole.loaded);
    const second = await open(false);
    assert.ok(attachedView(second.session), "served through the saved index");
    await assertSameAnswers(second.loaded, whole.loaded);
  });

  it("reads the whole file for the whole session, stats and diffs, with the same answers", async () => {
    const whole = await open(true);
    const indexed = await open(false);
    assert.equal(JSON.stringify(indexed.session), JSON.stringify(whole.session), "GET /api/session");
    assert.deepEqual(statsOf(indexed.loaded), statsOf(whole.loaded));
    const shape = JSON.parse(whole.loaded.shapeJson()) as { ids: string[] };
    const a = shape.ids[40] as string;
    assert.deepEqual(diffOf(indexed.loaded, a, undefined), diffOf(whole.loaded, a, undefined));
  });

  it("keeps each entry's look beside the index and reads them from there, checked by the index's stamp", async () => {
    rmSync(indexPathFor(path), { force: true });
    rmSync(looksPathFor(path), { force: true });
    const whole = await open(true);
    await open(false);
    await saved();
    const kept = readFileSync(looksPathFor(path));
    const looksAt = kept.indexOf(0x0a) + 1;
    const shape = JSON.parse(whole.loaded.shapeJson()) as { looks: string };
    // A byte per entry of the index: the shown nodes and the hidden leaf markers.
    assert.ok(kept.length - looksAt > shape.looks.length);
    // A look changed in the kept file is what the next open shows: the lines were not read again.
    const tampered = Buffer.from(kept);
    tampered[looksAt] = (tampered[looksAt] as number) === 0 ? 1 : 0;
    writeFileSync(looksPathFor(path), tampered);
    const fromCache = JSON.parse((await open(false)).loaded.shapeJson()) as { looks: string };
    assert.notEqual(fromCache.looks[0], shape.looks[0], "the kept looks were used");
    // Torn (a byte short): not used, made again from the lines.
    writeFileSync(looksPathFor(path), kept.subarray(0, kept.length - 1));
    await assertSameAnswers((await open(false)).loaded, whole.loaded);
    assert.deepEqual(readFileSync(looksPathFor(path)), kept, "written again");
    // The file grew: the kept looks serve the entries the older index covered, the new are read.
    const sm = SessionManager.open(path, undefined, undefined, { root });
    sm.appendMessage({
      role: "toolResult",
      toolCallId: "x",
      toolName: "read",
      content: [],
      isError: true,
      timestamp: 1,
    } as never);
    sm.appendMessage({ role: "user", content: "one more", timestamp: 2 });
    sm.close();
    const grown = await open(false);
    assert.ok(attachedView(grown.session), "served through the caught-up index");
    await assertSameAnswers(grown.loaded, (await open(true)).loaded);
    const after = JSON.parse(grown.loaded.shapeJson()) as { looks: string };
    assert.equal(after.looks.slice(-2), "da", "the appended tool error (d) and prompt (a)");
  });

  it("reads a damaged file whole, as before", async () => {
    const lines = readFileSync(path, "utf8").split("\n");
    // A line cut short: it starts as an entry (the indexer only scans its start), it ends as none.
    lines.splice(
      3000,
      0,
      '{"type":"message","id":"broken1","parentId":null,"timestamp":"x","message":{"role":"user"',
    );
    writeFileSync(path, lines.join("\n"));
    const indexed = await open(false);
    assert.equal(attachedView(indexed.session), undefined, "not served through the index");
    const whole = await open(true);
    assert.equal(indexed.loaded.openingJson(200), whole.loaded.openingJson(200));
    assert.ok(JSON.parse(whole.loaded.shapeJson()).issues.length > 0, "the damage is reported");
  });

  it("reads whole a file where pi's next line was glued to a torn one (it ends in } like any other)", async () => {
    // Without the line the test before cut short: this file's only damage is the glued line.
    const lines = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .filter((line) => !line.includes('"id":"broken1"'));
    const last = JSON.parse(lines[lines.length - 1] as string) as { id: string };
    const torn = `{"type":"message","id":"torn0001","parentId":"${last.id}","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user",`;
    const next = `{"type":"message","id":"pi000002","parentId":"${last.id}","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"after the crash","timestamp":1}}`;
    writeFileSync(path, `${lines.join("\n")}\n${torn}${next}\n`);
    rmSync(indexPathFor(path), { force: true });
    const indexed = await open(false);
    assert.equal(attachedView(indexed.session), undefined, "not served through the index");
    const whole = await open(true);
    assert.equal(indexed.loaded.openingJson(200), whole.loaded.openingJson(200));
    assert.ok(JSON.parse(whole.loaded.shapeJson()).issues.length > 0, "the damage is reported");
  });
});

/** The error `run` throws, to match another against. */
function errorOf(run: () => unknown): { name: string; message: string; code: unknown } {
  try {
    run();
  } catch (error) {
    const { name, message, code } = error as Error & { code: unknown };
    return { name, message, code };
  }
  throw new Error("expected an error");
}
