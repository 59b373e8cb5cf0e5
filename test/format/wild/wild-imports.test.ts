/**
 * Importing Claude Code and Codex CLI session files in the shapes they take in the wild. The
 * fixtures beside this file are small and synthetic, but shaped as the real files are:
 *
 * - claude-resumed/: a session (1575475e…), a `--resume` of it in a new file (3240e317…) that starts
 *   with a summary and copies of the first session's lines, which keep their old `sessionId`
 *   (anthropics/claude-code#30606, siteboon/claudecodeui#1022), and a new file (bf310f55…) whose
 *   records all carry the old `sessionId` (anthropics/claude-code#8614).
 * - claude-edit-string-prompts.jsonl: typed prompts as plain strings, one edited after a rewind
 *   (a second user line under the same assistant reply).
 * - claude-odd-shapes.jsonl: CRLF line ends, non-ASCII text, a meta (isMeta) message, an image,
 *   thinking + redacted_thinking + tool_use split over three lines, a 100 kB tool result with an
 *   image, a system line, an API-error reply and its retry (siblings), an in-file sidechain, a torn
 *   last line.
 * - codex-rollback-…: a rollout in which a turn was rolled back (`event_msg` `thread_rolled_back`,
 *   as codex-rs writes it and replays it in `reconstruct_history_from_rollout`).
 * - codex-legacy-…: a mid-2025 rollout (bare header, `record_type: state`, bare items, early shell
 *   output JSON, local_shell_call).
 * - refused/: an empty file and a file holding only a summary line.
 *
 * Each shape here once imported wrong (a resumed file's id, an edited string prompt, redacted
 * thinking, a Codex rollback) or pins what already worked.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { main } from "../../../src/cli/main.js";
import { importClaudeCode } from "../../../src/format/claude-code.js";
import { importCodex } from "../../../src/format/codex.js";
import { tempWorkspace } from "../../cli/helpers.js";
import { capturedIO } from "../../support/captured-io.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => join(HERE, name);
const read = (name: string) => readFileSync(fixture(name), "utf8");

const RESUMED = "claude-resumed";
const ORIGINAL_ID = "1575475e-ede7-481e-b026-6e01c57d5d5d";
const RESUMED_ID = "3240e317-05c7-4101-9375-18a3544dd18e";
const RESTARTED_ID = "bf310f55-ff31-4ecd-9a01-3b190b35a916";
const CODEX_ROLLBACK =
  "codex-rollback-rollout-2025-10-02T01-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
const CODEX_LEGACY = "codex-legacy-rollout-2025-07-01T09-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl";

type Msg = { role: string; content?: unknown; isError?: boolean; toolName?: string };

function textOf(message: Msg): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : ""))
    .join("");
}

/** The context pi itself builds from an imported file. */
function piContext(path: string): Msg[] {
  return PiSessionManager.open(path, dirname(path)).buildSessionContext().messages as Msg[];
}

type Row = Record<string, unknown>;
interface ImportOut {
  imported: Row[];
  appended: Row[];
  skipped: Row[];
  failed: Row[];
}

/**
 * `sessiontree import --json PATH...` run in this process (the CLI's own `main`, real files), with
 * the session root inside `dir`.
 */
async function importJson(dir: string, ...paths: string[]): Promise<{ code: number; out: ImportOut }> {
  const env = { PATH: process.env.PATH ?? "", HOME: dir, SESSIONTREE_ROOT: join(dir, "root") };
  const { io, output } = capturedIO(env, dir);
  const code = await main(["import", "--json", ...paths], io);
  return { code, out: JSON.parse(output.stdout) as ImportOut };
}

describe("wild Claude Code files: a resumed session's file", () => {
  const ws = tempWorkspace();
  after(() => ws.cleanup());

  it("each file imports as its own session, named by its file, though its first lines carry another session's id", async () => {
    const { out } = await importJson(ws.dir, fixture(RESUMED));
    const bySource = new Map(
      [...out.imported, ...out.appended, ...out.skipped].map((r) => [basename(String(r.source)), r]),
    );
    assert.deepEqual(out.skipped, [], "no file of the folder is left out");
    assert.equal(out.imported.length, 3);
    for (const id of [ORIGINAL_ID, RESUMED_ID, RESTARTED_ID])
      assert.equal(bySource.get(`${id}.jsonl`)?.sessionId, id, `${id}.jsonl keeps its own id`);
  });

  it("the library gives the file's own id too (file name, else the last record's sessionId)", () => {
    const restarted = importClaudeCode(read(`${RESUMED}/${RESTARTED_ID}.jsonl`), {
      fileName: `${RESTARTED_ID}.jsonl`,
    });
    assert.equal(restarted.header.id, RESTARTED_ID);
    const resumed = importClaudeCode(read(`${RESUMED}/${RESUMED_ID}.jsonl`));
    assert.equal(resumed.header.id, RESUMED_ID, "the records written last name the session");
  });

  it("keeps a resumed file's whole conversation, the copied lines included, with the summary as its name", () => {
    const result = importClaudeCode(read(`${RESUMED}/${RESUMED_ID}.jsonl`));
    const messages = result.entries.filter((e) => e.type === "message");
    assert.deepEqual(
      messages.map((e) => e.id),
      ["u1", "a1", "u2", "a2"],
    );
    assert.equal(result.leafId, "a2");
    assert.equal(result.name, "First question");
  });
});

describe("wild Claude Code files: an edited plain-string prompt", () => {
  const text = read("claude-edit-string-prompts.jsonl");
  const result = importClaudeCode(text);
  const byId = new Map(result.entries.map((e) => [e.id, e]));
  const reply = "e0000002-0000-4000-8000-000000000002";
  const original = "e0000003-0000-4000-8000-000000000003";
  const edited = "e0000005-0000-4000-8000-000000000005";

  it("the edited prompt is a sibling of the original, under the reply both answer", () => {
    assert.equal(byId.get(original)?.parentId, reply);
    assert.equal(byId.get(edited)?.parentId, reply);
  });

  it("the context at the leaf holds the edited prompt, not the abandoned one", async () => {
    const ws = tempWorkspace();
    try {
      const { out } = await importJson(ws.dir, fixture("claude-edit-string-prompts.jsonl"));
      const path = String(out.imported[0]?.path);
      const texts = piContext(path).map(textOf);
      assert.deepEqual(texts, ["hi", "hello", "edited question", "answer to edited"]);
    } finally {
      ws.cleanup();
    }
  });

  it("keeps the abandoned branch in the tree, and the leaf on the edited one", () => {
    assert.ok(byId.has(original));
    assert.equal(byId.get("e0000004-0000-4000-8000-000000000004")?.parentId, original);
    assert.equal(result.leafId, "e0000006-0000-4000-8000-000000000006");
  });
});

describe("wild Claude Code files: odd shapes in one session", () => {
  const ws = tempWorkspace();
  let path = "";
  let first: Awaited<ReturnType<typeof importJson>>;
  const result = importClaudeCode(read("claude-odd-shapes.jsonl"));
  const byId = new Map(result.entries.map((e) => [e.id, e]));
  before(async () => {
    first = await importJson(ws.dir, fixture("claude-odd-shapes.jsonl"));
    path = String(first.out.imported[0]?.path);
  });
  after(() => ws.cleanup());

  it("imports through the CLI, reporting the torn last line (exit status 1)", () => {
    assert.equal(first.code, 1);
    assert.equal(first.out.imported.length, 1);
    const report = first.out.imported[0]?.report as { skipped: Array<{ line: number }> };
    assert.deepEqual(
      report.skipped.map((s) => s.line),
      [19],
    );
  });

  it("opens in pi with the whole conversation: non-ASCII text, images, a 100 kB result, CRLF inside output", () => {
    const context = piContext(path);
    assert.deepEqual(
      context.map((m) => m.role),
      [
        "user",
        "user",
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "assistant",
      ],
    );
    const prompt = context[2] as { content: Array<{ type: string; text?: string; mimeType?: string }> };
    assert.equal(prompt.content[0]?.text, "Read ü.txt — 日本語 please 🎉");
    assert.equal(prompt.content[1]?.type, "image");
    assert.equal(prompt.content[1]?.mimeType, "image/png");
    const big = context[4] as { content: Array<{ type: string; text?: string }> };
    assert.equal(big.content[0]?.text?.length, 100000 + " END-OF-BIG".length);
    assert.equal(big.content[1]?.type, "image");
    assert.equal(textOf(context[8] as Msg), "file1\r\nfile2");
    assert.equal(textOf(context[9] as Msg), "final ✓");
  });

  it("merges thinking, redacted thinking and the tool call of one reply into one message", () => {
    const a1 = byId.get("a1") as unknown as {
      message: { content: Array<{ type: string }>; stopReason: string };
    };
    const types = a1.message.content.map((b) => b.type);
    assert.equal(types.length, 3);
    assert.equal(types[0], "thinking");
    assert.equal(types[2], "toolCall");
    assert.equal(a1.message.stopReason, "toolUse");
    assert.equal(result.report.merged, 2);
  });

  it("keeps an API error and its retry as sibling branches, the leaf on the retry's line", () => {
    assert.equal(byId.get("err1")?.parentId, "m2e");
    assert.equal(byId.get("a4")?.parentId, "m2e");
    assert.equal(result.leafId, "a9");
  });

  it("keeps the sidechain out of the context, under the entry it ran from", () => {
    assert.equal((byId.get("s1") as { customType?: string }).customType, "claude-code.sidechain");
    assert.equal(byId.get("s1")?.parentId, "a4");
    assert.ok(!piContext(path).some((m) => textOf(m).includes("subagent")));
  });

  it("names the session from its summary, and a re-import finds nothing new", async () => {
    assert.equal(result.name, "Ünïcödé session 日本語");
    const again = await importJson(ws.dir, fixture("claude-odd-shapes.jsonl"));
    assert.equal(again.out.skipped[0]?.reason, "already_imported");
    assert.equal(again.out.imported.length + again.out.appended.length, 0);
  });

  it("redacted thinking takes pi's own shape, so pi hands it back to Anthropic on resume", () => {
    const a1 = byId.get("a1") as unknown as { message: { content: Array<Record<string, unknown>> } };
    const block = a1.message.content[1];
    assert.equal(block?.type, "thinking");
    assert.equal(block?.redacted, true);
    assert.equal(block?.thinkingSignature, "REDACTED_BLOB");
  });
});

describe("wild Codex rollouts: a rolled-back turn", () => {
  const result = importCodex(read(CODEX_ROLLBACK), { fileName: CODEX_ROLLBACK });
  const byId = new Map(result.entries.map((e) => [e.id, e]));
  const pathTo = (id: string) => {
    const ids: string[] = [];
    for (let at: string | null | undefined = id; at; at = byId.get(at)?.parentId) ids.push(at);
    return ids;
  };

  it("the turn after the rollback hangs where the rolled-back turn began, not after it", () => {
    const path = pathTo("cx000021");
    assert.ok(path.includes("cx000006"), "the kept turn stays on the path");
    assert.ok(!path.includes("cx000010"), "the rolled-back prompt is off the path");
    assert.ok(!path.includes("cx000014"), "the rolled-back answer is off the path");
  });

  it("pi's context holds what Codex would send after the rollback", async () => {
    const ws = tempWorkspace();
    try {
      const { out } = await importJson(ws.dir, fixture(CODEX_ROLLBACK));
      const context = piContext(String(out.imported[0]?.path));
      assert.deepEqual(context.map(textOf), ["Keep this", "First answer", "Replacement", "Third answer"]);
    } finally {
      ws.cleanup();
    }
  });

  /** The fixture's lines 1–17: the rollback is the last thing Codex did. */
  const endingInRollback = (turns: number) =>
    read(CODEX_ROLLBACK).split("\n").slice(0, 17).join("\n").replace('"num_turns":1', `"num_turns":${turns}`);

  it("a rollback at the end of the file leaves the leaf where it went back to, with a leaf marker", async () => {
    const ended = importCodex(endingInRollback(1), { fileName: CODEX_ROLLBACK });
    const marker = ended.entries[ended.entries.length - 1];
    assert.equal(marker?.type, "custom");
    assert.equal(marker?.parentId, ended.leafId);
    assert.deepEqual(ended.derivedIds, [marker?.id]);
    const ws = tempWorkspace();
    try {
      const source = join(ws.dir, CODEX_ROLLBACK);
      writeFileSync(source, endingInRollback(1));
      const { out } = await importJson(ws.dir, source);
      assert.deepEqual(piContext(String(out.imported[0]?.path)).map(textOf), ["Keep this", "First answer"]);
      // The whole file later: the re-import appends what followed, on the new branch.
      writeFileSync(source, read(CODEX_ROLLBACK));
      const again = await importJson(ws.dir, source);
      const path = String(again.out.appended[0]?.path);
      assert.deepEqual(piContext(path).map(textOf), [
        "Keep this",
        "First answer",
        "Replacement",
        "Third answer",
      ]);
    } finally {
      ws.cleanup();
    }
  });

  it("rolling back more turns than there are goes back to before the first prompt", () => {
    const ended = importCodex(endingInRollback(5), { fileName: CODEX_ROLLBACK });
    const byIdHere = new Map(ended.entries.map((e) => [e.id, e]));
    const path: string[] = [];
    for (let at = ended.leafId; at; at = byIdHere.get(at)?.parentId ?? null) path.push(at);
    assert.ok(!path.some((id) => byIdHere.get(id)?.type === "message"), "no message on the leaf's path");
    assert.ok(path.length > 0, "the records before the first prompt stay on it");
  });

  it("keeps the rolled-back turn in the tree and every record accounted for", () => {
    for (const id of ["cx000010", "cx000012", "cx000013", "cx000014", "cx000017"])
      assert.ok(byId.has(id), id);
    assert.deepEqual(result.report.skipped, []);
    assert.equal(result.header.id, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
  });
});

describe("wild Codex rollouts: the mid-2025 shape", () => {
  const ws = tempWorkspace();
  after(() => ws.cleanup());

  it("imports with the header's id and the cwd from the environment context, and opens in pi", async () => {
    const { code, out } = await importJson(ws.dir, fixture(CODEX_LEGACY));
    assert.equal(code, 0);
    const item = out.imported[0] as { sessionId: string; path: string; report: { shape: string } };
    assert.equal(item.sessionId, "5973b6c0-94b8-487b-a530-2aeb6098ae0e");
    assert.equal(item.report.shape, "legacy");
    assert.match(item.path, /home-dev-old/);
    const context = piContext(item.path);
    assert.deepEqual(
      context.map((m) => m.role),
      ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"],
    );
    assert.equal(textOf(context[0] as Msg), "list files ✓");
    assert.equal(context[2]?.isError, true, "exit code 1 in the early shell output");
    assert.equal(context[4]?.isError, false);
    assert.equal(context[3] && (context[3].content as Array<{ name?: string }>)[0]?.name, "local_shell");
    assert.equal(textOf(context[5] as Msg), "done");
  });
});

describe("wild files without a conversation", () => {
  const ws = tempWorkspace();
  after(() => ws.cleanup());

  it("refuses an empty file and a summary-only file with their codes, writing nothing", async () => {
    const { code, out } = await importJson(ws.dir, fixture("refused"));
    assert.equal(code, 1);
    const codes = Object.fromEntries(out.failed.map((f) => [basename(String(f.source)), f.code]));
    assert.deepEqual(codes, { "empty.jsonl": "empty_session_file", "summary-only.jsonl": "no_conversation" });
    assert.equal(out.imported.length, 0);
    let written: string[] = [];
    try {
      written = readdirSync(ws.root, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".jsonl"));
    } catch {
      written = [];
    }
    assert.deepEqual(written, []);
  });
});
