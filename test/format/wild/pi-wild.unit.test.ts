/**
 * pi session files in the shapes they take in the wild, read by our `SessionManager` and by pi
 * 0.73.1 (`@mariozechner/pi-coding-agent`) side by side, appended by each and read back by the
 * other, and run through the CLI (`ls`, `tree`, `show`, `fsck`, `export`, `stats`, `migrate`,
 * `repair`). The fixtures are written here, shaped on what public pi sessions, pi's own test
 * fixtures and issue threads show:
 *
 * - every message kind pi 0.73 writes: images (base64) in user prompts, tool results and custom
 *   messages; thinking with a signature; tool calls with Windows paths; `bashExecution` (also
 *   `excludeFromContext`, cancelled with no exit code); `custom_message`; branch summaries from an
 *   entry and from the root (`fromId: "root"`, `details`, `fromHook`); a label on an entry the
 *   session does not hold; a name with spaces around it; thinking levels `xhigh`/`minimal`; models
 *   of providers pi does not know (`openrouter` with a slashed model id, a local server);
 * - headers and encodings other tools leave: a UTF-8 BOM, CRLF line ends, a Windows cwd, blank
 *   lines before the header, no cwd (pi's oldest sessions), `parentSession` (a fork), raw U+2028;
 * - v1 (no ids; header with provider/modelId/thinkingLevel) and v2 (`hookMessage`) sessions;
 * - a header written twice with the entries after it written again (pi #1672, #5048);
 * - a record torn by a crash with pi's next append glued to it (pi #8575), in a session of more
 *   than 1 MiB (a screenshot in an early prompt), where our resume reads through the sidecar index;
 * - a byte order mark on a line of its own before the header (a Windows tool's empty first line);
 * - a damaged first line before an intact header;
 * - a tool call that names no arguments (a writer other than pi);
 * - a header of a newer format version; an assistant message that names no provider or model.
 *
 * Where pi falls short (docs: shared/design/PI-FORMAT.md), our documented choice is what is tested.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { repairFile } from "../../../src/file/repair.js";
import { SessionManager } from "../../../src/session/session-manager.js";
import { cliEnv, readJsonl, runScenario } from "../../cli/helpers.js";
import { assertSameSession, pairByPosition, SAME_IDS } from "../../session/support/pair.js";
import { tempFolders } from "../../support/temp-folders.js";

const { root, fresh } = tempFolders("st-pi-wild");
/** Sidecar indexes (made when a session over 1 MiB is resumed) go here, not to the user's cache. */
const CACHE = join(root, "cache");
process.env.SESSIONTREE_CACHE_DIR = CACHE;

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const ms = (second: number) => Date.parse(at(second));
const lines = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;

const HEADER = {
  type: "session",
  version: 3,
  id: "0198a1c2-5b7e-7c3d-9e4f-1a2b3c4d5e6f",
  timestamp: at(0),
  cwd: "/home/dev/shop",
};
const USAGE = {
  input: 1200,
  output: 80,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1280,
  cost: { input: 0.0036, output: 0.0012, cacheRead: 0, cacheWrite: 0, total: 0.0048 },
};
/** A 1×1 PNG, as pi stores a pasted screenshot (base64, no data: prefix). */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

type Rec = Record<string, unknown>;
const message = (id: string, parentId: string | null, second: number, body: Rec): Rec => ({
  type: "message",
  id,
  parentId,
  timestamp: at(second),
  message: { ...body, timestamp: ms(second) },
});
const user = (id: string, parentId: string | null, second: number, content: unknown = `question ${id}`) =>
  message(id, parentId, second, { role: "user", content });
const reply = (id: string, parentId: string | null, second: number, fields: Rec = {}) =>
  message(id, parentId, second, {
    role: "assistant",
    content: [{ type: "text", text: `answer ${id}` }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: USAGE,
    stopReason: "stop",
    ...fields,
  });

/** A session of pi 0.73 using every message kind and entry type it writes. */
const EVERY_KIND = lines([
  HEADER,
  user("9f1c2a00", null, 1, [
    { type: "text", text: "Why does the checkout page look like this?" },
    { type: "image", data: PNG, mimeType: "image/png" },
  ]),
  reply("9f1c2a01", "9f1c2a00", 2, {
    content: [
      { type: "thinking", thinking: "Look at the stylesheet first.", thinkingSignature: "EqQBCkYIBxgCKkB" },
      { type: "toolCall", id: "toolu_01", name: "read", arguments: { path: "C:\\shop\\web\\checkout.css" } },
    ],
    stopReason: "toolUse",
  }),
  message("9f1c2a02", "9f1c2a01", 3, {
    role: "toolResult",
    toolCallId: "toolu_01",
    toolName: "read",
    content: [
      { type: "text", text: ".checkout { display: grid }" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ],
    details: { truncated: false },
    isError: false,
  }),
  message("9f1c2a03", "9f1c2a02", 4, {
    role: "bashExecution",
    command: "npm run build",
    output: "built in 2.1s\n",
    exitCode: 0,
    cancelled: false,
    truncated: false,
  }),
  message("9f1c2a04", "9f1c2a03", 5, {
    role: "bashExecution",
    command: "cat .env",
    output: "",
    cancelled: true,
    truncated: false,
    excludeFromContext: true,
  }),
  {
    type: "custom_message",
    customType: "screenshot-watcher",
    content: [
      { type: "text", text: "New screenshot" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ],
    display: false,
    details: { file: "C:\\Users\\dev\\Pictures\\shot.png" },
    id: "9f1c2a05",
    parentId: "9f1c2a04",
    timestamp: at(6),
  },
  {
    type: "thinking_level_change",
    id: "9f1c2a06",
    parentId: "9f1c2a05",
    timestamp: at(7),
    thinkingLevel: "xhigh",
  },
  {
    type: "model_change",
    id: "9f1c2a07",
    parentId: "9f1c2a06",
    timestamp: at(8),
    provider: "openrouter",
    modelId: "qwen/qwen3-coder:free",
  },
  reply("9f1c2a08", "9f1c2a07", 9, {
    api: "openai-completions",
    provider: "openrouter",
    model: "qwen/qwen3-coder:free",
  }),
  {
    type: "label",
    id: "9f1c2a09",
    parentId: "9f1c2a08",
    timestamp: at(10),
    targetId: "9f1c2a00",
    label: "the bug",
  },
  {
    type: "label",
    id: "9f1c2a0a",
    parentId: "9f1c2a09",
    timestamp: at(11),
    targetId: "0badc0de",
    label: "elsewhere",
  },
  // /tree back to the first prompt, with a summary of the branch left behind; then from the root.
  {
    type: "branch_summary",
    id: "9f1c2a0b",
    parentId: "9f1c2a00",
    timestamp: at(12),
    fromId: "9f1c2a0a",
    summary: "Tried a grid layout; the build passed.",
    details: { readFiles: ["web/checkout.css"], modifiedFiles: [] },
  },
  {
    type: "branch_summary",
    id: "9f1c2a0c",
    parentId: null,
    timestamp: at(13),
    fromId: "root",
    summary: "Started over.",
    fromHook: true,
  },
  user("9f1c2a0d", "9f1c2a0c", 14),
  {
    type: "thinking_level_change",
    id: "9f1c2a0e",
    parentId: "9f1c2a0d",
    timestamp: at(15),
    thinkingLevel: "minimal",
  },
  {
    type: "model_change",
    id: "9f1c2a0f",
    parentId: "9f1c2a0e",
    timestamp: at(16),
    provider: "local-llama",
    modelId: "gpt-oss:20b",
  },
  {
    type: "custom",
    customType: "plan-mode",
    data: { enabled: true },
    id: "9f1c2a10",
    parentId: "9f1c2a0f",
    timestamp: at(17),
  },
  {
    type: "session_info",
    id: "9f1c2a11",
    parentId: "9f1c2a10",
    timestamp: at(18),
    name: "  Checkout layout  ",
  },
]);

/** The same few entries behind each header or encoding another tool leaves. */
const body = [user("u1", null, 1, "line one\u2028still line one"), reply("a1", "u1", 2)];
const ENCODINGS: Record<string, string> = {
  "a UTF-8 BOM, CRLF line ends and a Windows cwd":
    `\uFEFF${lines([{ ...HEADER, cwd: "C:\\Users\\dev\\shop" }, ...body])}`.replace(/\n/g, "\r\n"),
  "blank lines before the header": `\n\n${lines([HEADER, ...body])}`,
  "a header with no cwd (pi's oldest sessions)": lines([
    { type: "session", version: 3, id: HEADER.id, timestamp: at(0) },
    ...body,
  ]),
  "a forked session (parentSession) with a label": lines([
    {
      ...HEADER,
      parentSession: "/home/dev/.pi/agent/sessions/--home-dev-shop--/2025-12-31T23-00-00-000Z_x.jsonl",
    },
    ...body,
    { type: "label", id: "l1", parentId: "a1", timestamp: at(3), targetId: "u1", label: "fork point" },
  ]),
};

/** Both readers on copies of `text`; compares them deeply, then appends with each and reads with the other. */
function assertReadAndAppendAlike(text: string, where: string): void {
  const dir = fresh();
  const ours = join(dir, "ours.jsonl");
  const pi = join(dir, "pi.jsonl");
  writeFileSync(ours, text);
  writeFileSync(pi, text);
  const oursReading = SessionManager.open(ours);
  const piReading = PiSessionManager.open(pi);
  assertSameSession(oursReading, piReading, SAME_IDS, where, { deep: true });
  assert.equal(oursReading.getCwd(), piReading.getCwd(), `${where}: cwd`);
  assert.deepEqual(oursReading.getHeader(), piReading.getHeader(), `${where}: header`);
  assert.deepEqual(oursReading.getIssues(), [], `${where}: a clean file has no issues`);

  // Ours appends, pi reads; pi appends, ours reads: the same leaf and context either way.
  const next = { role: "user" as const, content: "and now?", timestamp: ms(59) };
  const oursId = oursReading.appendMessage(next);
  oursReading.close();
  const piAfterOurs = PiSessionManager.open(ours);
  assert.equal(piAfterOurs.getLeafId(), oursId, `${where}: pi's leaf after our append`);
  const oursAgain = SessionManager.open(ours);
  assertSameSession(oursAgain, piAfterOurs, SAME_IDS, `${where}: after our append`);
  oursAgain.close();
  const piId = piReading.appendMessage(next);
  const oursAfterPi = SessionManager.open(pi);
  assert.equal(oursAfterPi.getLeafId(), piId, `${where}: our leaf after pi's append`);
  assertSameSession(oursAfterPi, PiSessionManager.open(pi), SAME_IDS, `${where}: after pi's append`);
  oursAfterPi.close();
}

describe("pi sessions as they are found: every kind of entry and message, other tools' headers", () => {
  test("every message kind pi writes reads, appends and projects as in pi", () => {
    assertReadAndAppendAlike(EVERY_KIND, "every kind");
    const dir = fresh();
    writeFileSync(join(dir, "s.jsonl"), EVERY_KIND);
    const session = SessionManager.open(join(dir, "s.jsonl"));
    const context = session.buildSessionContext();
    // The /tree from the root left one branch: its summary, then the new prompt; the settings it took.
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["branchSummary", "user"],
    );
    assert.equal(context.thinkingLevel, "minimal");
    assert.deepEqual(context.model, { provider: "local-llama", modelId: "gpt-oss:20b" });
    assert.equal(session.getSessionName(), "Checkout layout");
    assert.equal(session.getLabel("9f1c2a00"), "the bug");
    assert.equal(session.getLabel("0badc0de"), "elsewhere", "a label on an entry not held is kept, as in pi");
    // On the abandoned branch: images, bash (excluded too), the custom message all reach the model.
    session.branch("9f1c2a08");
    assert.deepEqual(
      session.buildSessionContext().messages.map((m) => m.role),
      ["user", "assistant", "toolResult", "bashExecution", "bashExecution", "custom", "assistant"],
    );
    session.close();
  });

  for (const [name, text] of Object.entries(ENCODINGS)) {
    test(`${name}: read, appended and projected as in pi`, () => {
      assertReadAndAppendAlike(text, name);
    });
  }
});

describe("older formats as pi wrote them, and `sessiontree migrate`", () => {
  const V1 = lines([
    {
      type: "session",
      id: "5a7e0c44-1b1d-4f5e-9a61-0f3c2d9b8e71",
      timestamp: at(0),
      cwd: "/Users/dev/shop",
      provider: "anthropic",
      modelId: "claude-opus-4-5",
      thinkingLevel: "off",
      branchedFrom: "/Users/dev/.pi/agent/sessions/--Users-dev-shop--/2025-11-20T23-00-00-000Z_old.jsonl",
    },
    {
      type: "message",
      timestamp: at(1),
      message: { role: "user", content: [{ type: "text", text: "/mode" }], timestamp: ms(1) },
    },
    { type: "thinking_level_change", timestamp: at(2), thinkingLevel: "high" },
    {
      type: "message",
      timestamp: at(3),
      message: {
        role: "assistant",
        content: [
          {
            type: "toolCall",
            id: "c1",
            name: "bash",
            arguments: { command: "ls" },
            partialJson: '{"command":"ls"}',
          },
        ],
        api: "openai-responses",
        provider: "openai",
        model: "gpt-5.1-codex",
        usage: USAGE,
        stopReason: "aborted",
        timestamp: ms(3),
      },
    },
    { type: "model_change", timestamp: at(4), provider: "google", modelId: "gemini-2.5-pro" },
    {
      type: "message",
      timestamp: at(5),
      message: {
        role: "bashExecution",
        command: "ls",
        output: "a\nb\n",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: ms(5),
      },
    },
    // Index 4 of the parsed records, header included: the model change.
    {
      type: "compaction",
      timestamp: at(6),
      summary: "Listed files.",
      firstKeptEntryIndex: 4,
      tokensBefore: 5000,
    },
    { type: "message", timestamp: at(7), message: { role: "user", content: "next", timestamp: ms(7) } },
  ]);
  const V2 = lines([
    { type: "session", version: 2, id: "v2-session", timestamp: at(0), cwd: "/p" },
    user("u1", null, 1),
    reply("a1", "u1", 2),
    message("h1", "a1", 3, {
      role: "hookMessage",
      customType: "todo",
      content: "Remember the tests",
      display: true,
      details: { n: 1 },
    }),
    {
      type: "custom",
      customType: "plan-mode",
      data: { on: true },
      id: "c1",
      parentId: "h1",
      timestamp: at(4),
    },
    {
      type: "compaction",
      id: "k1",
      parentId: "c1",
      timestamp: at(5),
      summary: "Asked, answered, noted.",
      firstKeptEntryId: "a1",
      tokensBefore: 900,
      details: { readFiles: ["a.ts"], modifiedFiles: [] },
      fromHook: false,
    },
  ]);
  const OLD: Record<string, string> = {
    v1: V1,
    "v1, CRLF": V1.replace(/\n/g, "\r\n"),
    "v1, a blank line inside (pi's indexes count parsed records)": V1.replace(
      /\n(?=\{"type":"model_change")/,
      "\n\n",
    ),
    "v1, last line without its newline": V1.trimEnd(),
    v2: V2,
  };

  for (const [name, text] of Object.entries(OLD)) {
    test(`${name}: read as pi reads it, and migrated keeping everything pi reads`, () => {
      const dir = fresh();
      const oursPath = join(dir, "ours.jsonl");
      const piPath = join(dir, "pi.jsonl");
      const migrated = join(dir, "migrated.jsonl");
      for (const path of [oursPath, piPath, migrated]) writeFileSync(path, text);
      const ours = SessionManager.open(oursPath);
      const pi = PiSessionManager.open(piPath);
      assertSameSession(ours, pi, pairByPosition(ours, pi), name, { deep: true });
      assert.deepEqual(ours.getIssues(), []);
      ours.close();

      const [result] = runScenario(dir, [{ args: ["migrate", migrated, "--json"] }]);
      assert.equal(result?.code, 0, result?.stderr);
      const after = PiSessionManager.open(migrated);
      assert.deepEqual(
        after.buildSessionContext(),
        pi.buildSessionContext(),
        `${name}: pi's context after migrate`,
      );
      assert.equal(after.getSessionName(), pi.getSessionName());
      assert.equal(after.getEntries().length, pi.getEntries().length);
      const { version: _v, ...headerAfter } = after.getHeader() as unknown as Rec;
      const { version: _w, ...headerBefore } = pi.getHeader() as unknown as Rec;
      assert.deepEqual(headerAfter, headerBefore, `${name}: header fields kept`);
      assert.equal(readJsonl(migrated)[0]?.version, 3);
    });
  }
});

describe("a header written twice, with the entries after it written again (pi #1672, #5048)", () => {
  const text = lines([
    HEADER,
    user("u1", null, 1),
    reply("a1", "u1", 2),
    HEADER,
    user("u1", null, 1),
    reply("a1", "u1", 2),
    user("u2", "a1", 3),
    reply("a2", "u2", 4),
  ]);

  test("the same leaf, branch and context as pi, each entry once; the damage is reported and repair mends it", () => {
    const dir = fresh();
    const path = join(dir, "dup.jsonl");
    writeFileSync(path, text);
    const ours = SessionManager.open(path);
    const pi = PiSessionManager.open(path);
    assert.equal(ours.getLeafId(), pi.getLeafId());
    assert.deepEqual(ours.getBranch(), pi.getBranch());
    assert.deepEqual(ours.buildSessionContext().messages, pi.buildSessionContext().messages);
    // pi lists u1 and a1 twice (and draws them twice in its tree); ours holds each entry once.
    assert.deepEqual(
      ours.getEntries().map((e) => e.id),
      ["u1", "a1", "u2", "a2"],
    );
    assert.deepEqual(
      ours.getIssues().map((i) => [i.code, i.line]),
      [
        ["invalid_entry", 4],
        ["duplicate_identical", 5],
        ["duplicate_identical", 6],
      ],
    );
    ours.close();
    const report = repairFile(path);
    assert.equal(report.changed, true);
    const repaired = PiSessionManager.open(path);
    assert.deepEqual(repaired.buildSessionContext(), pi.buildSessionContext());
    assert.deepEqual(
      repaired.getEntries().map((e) => e.id),
      ["u1", "a1", "u2", "a2"],
    );
  });
});

describe("the CLI on the shapes pi reads", () => {
  test("ls, tree, show, fsck, export and stats handle them; show gives pi's context; fsck finds nothing", async () => {
    const dir = fresh();
    const agent = join(dir, "pi-agent");
    const folder = join(agent, "sessions", "--home-dev-shop--");
    mkdirSync(folder, { recursive: true });
    const texts = { "every kind": EVERY_KIND, ...ENCODINGS };
    const files = Object.values(texts).map((text, i) => {
      const path = join(folder, `2026-01-01T00-00-0${i}-000Z_${HEADER.id}-${i}.jsonl`);
      writeFileSync(path, text);
      return path;
    });
    const calls = [
      { args: ["ls", "--pi", agent, "--all", "--json"] },
      ...files.flatMap((file) => [
        { args: ["show", file, "--json"] },
        { args: ["tree", file, "--full"] },
        { args: ["fsck", file] },
        { args: ["export", file] },
        { args: ["export", file, "--format", "json"] },
        { args: ["stats", file] },
      ]),
    ];
    const results = runScenario(dir, calls);
    results.forEach((result, i) => {
      assert.equal(result.code, 0, `${calls[i]?.args.join(" ")}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /internal|TypeError|at .*\.ts:\d+/, calls[i]?.args.join(" "));
    });
    // ls lists each session as pi's SessionManager.list does (name, first message, counts, times).
    const listed = JSON.parse(results[0]?.stdout ?? "[]") as Array<Rec>;
    const piListed = await PiSessionManager.list("/elsewhere", folder);
    assert.equal(listed.length, files.length);
    for (const row of listed) {
      const pi = piListed.find((info) => info.path === row.path);
      assert.ok(pi, `${row.path} is listed by pi`);
      const { name, firstMessage, messageCount, cwd } = pi;
      assert.deepEqual(
        {
          name: row.name ?? undefined,
          firstMessage: row.firstMessage,
          messageCount: row.messageCount,
          cwd: row.cwd,
        },
        { name, firstMessage, messageCount, cwd },
      );
      assert.equal(row.modified, pi.modified.toISOString());
      assert.equal(row.issueCount, 0);
    }
    files.forEach((file, i) => {
      const shown = JSON.parse(results[1 + i * 6]?.stdout ?? "{}") as { messages: unknown[] };
      assert.deepEqual(shown.messages, PiSessionManager.open(file).buildSessionContext().messages, file);
    });
  });
});

describe("a byte order mark on a line of its own before the header", () => {
  // A Windows tool that starts the file with an empty line in "UTF-8 with BOM" leaves
  // `EF BB BF 0D 0A` before the header. pi reads the session (it trims the text and each line);
  // to our decoder, the indexer and the header peek (format/jsonl `isBlank`) a BOM alone is a
  // blank line too, and blank lines before the header are skipped.
  test("opens as pi opens it: the same session; `show` reads it, `repair` names it by its header", () => {
    const text = `\uFEFF\r\n${lines([HEADER, ...body]).replace(/\n/g, "\r\n")}`;
    const dir = fresh();
    const oursPath = join(dir, "ours.jsonl");
    writeFileSync(oursPath, text);
    writeFileSync(join(dir, "pi.jsonl"), text);
    const pi = PiSessionManager.open(join(dir, "pi.jsonl"));
    assert.equal(pi.getSessionId(), HEADER.id);
    assert.equal(pi.getEntries().length, 2);
    const ours = SessionManager.open(oursPath);
    assertSameSession(ours, pi, SAME_IDS, "BOM line", { deep: true });
    ours.close();
    const [shown, wouldRepair] = runScenario(dir, [
      { args: ["show", oursPath, "--json"] },
      { args: ["repair", oursPath, "--dry-run", "--json"] },
    ]);
    assert.equal(shown?.code, 0, shown?.stderr);
    // The report names the session by the header the file holds (the header peek skips the BOM line).
    const report = JSON.parse(wouldRepair?.stdout ?? "{}") as { files: Array<{ sessionId: string | null }> };
    assert.equal(report.files[0]?.sessionId, HEADER.id, wouldRepair?.stderr);
  });
});

describe("a record torn by a crash, and pi's next append glued to it (pi #8575), in a session over 1 MiB", () => {
  /**
   * Made with pi itself: a session whose first prompt holds a screenshot (1.3 MB of base64),
   * compacted; pi dies while writing an answer (the line is cut, no newline); the next pi run skips
   * the cut line and appends its answer, which lands on the same line, then two more entries.
   */
  function tornAndGlued(dir: string, compact = true): string {
    const pi = PiSessionManager.create("/home/dev/shop", dir);
    pi.appendMessage({
      role: "user",
      content: [
        { type: "text", text: "Here is the screen" },
        { type: "image", data: "A".repeat(1_300_000), mimeType: "image/png" },
      ],
      timestamp: ms(1),
    });
    const answer = (text: string, second: number) => ({
      role: "assistant" as const,
      content: [{ type: "text" as const, text }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: USAGE,
      stopReason: "stop" as const,
      timestamp: ms(second),
    });
    pi.appendMessage(answer("I see a grid.", 2) as never);
    const kept = pi.appendMessage({ role: "user", content: "Fix the footer", timestamp: ms(3) });
    pi.appendMessage(answer("Fixed.", 4) as never);
    if (compact)
      pi.appendCompaction("The user showed the checkout page; the footer was fixed.", kept, 90_000);
    const asked = pi.appendMessage({ role: "user", content: "Now the header", timestamp: ms(5) });
    const path = pi.getSessionFile() as string;
    const cut = JSON.stringify({
      type: "message",
      id: "c0ffee00",
      parentId: asked,
      timestamp: at(6),
      message: answer("The header needs a flex row, and the logo", 6),
    }).slice(0, 160);
    writeFileSync(path, readFileSync(path, "utf8") + cut);
    const next = PiSessionManager.open(path);
    next.appendMessage(answer("Header done.", 7) as never);
    next.appendMessage({ role: "user", content: "Thanks", timestamp: ms(8) });
    next.appendMessage(answer("You're welcome.", 9) as never);
    return path;
  }

  const copies = (compact = true) => {
    const dir = fresh();
    const made = tornAndGlued(join(dir, "made"), compact);
    const resume = join(dir, "resume.jsonl");
    const whole = join(dir, "whole.jsonl");
    copyFileSync(made, resume);
    copyFileSync(made, whole);
    return { dir, resume, whole };
  };

  const texts = (messages: unknown[]) =>
    messages.map((m) => {
      const x = m as { role: string; summary?: string; content?: unknown };
      if (x.summary !== undefined) return `${x.role}: ${x.summary}`;
      if (typeof x.content === "string") return `${x.role}: ${x.content}`;
      const first = (x.content as Array<{ text?: string }>)[0];
      return `${x.role}: ${first?.text ?? ""}`;
    });

  test("SessionManager.open (resume through the index) gives the context a whole read gives", () => {
    const { resume, whole } = copies();
    const wholeReading = SessionManager.open(whole, undefined, undefined, { open: "whole" });
    const expected = wholeReading.buildSessionContext();
    // The whole read keeps the glued answer (documented: glued records are split and kept).
    assert.deepEqual(texts(expected.messages), [
      "compactionSummary: The user showed the checkout page; the footer was fixed.",
      "user: Fix the footer",
      "assistant: Fixed.",
      "user: Now the header",
      "assistant: Header done.",
      "user: Thanks",
      "assistant: You're welcome.",
    ]);
    wholeReading.close();
    const resumed = SessionManager.open(resume);
    const first = resumed.buildSessionContext();
    assert.deepEqual(
      texts(first.messages),
      texts(expected.messages),
      "a resume through the index gives the whole read's context",
    );
    assert.deepEqual(first.model, expected.model);
    // And it must not change under the caller once something reads the whole file.
    resumed.getIssues();
    assert.deepEqual(texts(resumed.buildSessionContext().messages), texts(first.messages));
    resumed.close();
  });

  test("`sessiontree show` gives the context `tree` draws and a whole read gives", () => {
    const { dir, resume, whole } = copies();
    const expected = SessionManager.open(whole, undefined, undefined, { open: "whole" });
    const [shown, fsck] = runScenario(dir, [
      { args: ["show", resume, "--json"] },
      { args: ["fsck", resume] },
    ]);
    assert.equal(shown?.code, 0, shown?.stderr);
    // fsck reports the damaged line (a finding), which the readers step over.
    assert.equal(fsck?.code, 1);
    assert.match(fsck?.stdout ?? "", /glued_records/);
    const context = JSON.parse(shown?.stdout ?? "{}") as { messages: unknown[]; messageEntryIds: string[] };
    assert.deepEqual(texts(context.messages), texts(expected.buildSessionContext().messages));
    assert.deepEqual(context.messageEntryIds, expected.buildSessionContext().messageEntryIds);
    expected.close();
  });

  test("without a compaction too, once `tree` has indexed the file, SessionManager.open resumes the same", () => {
    // Before any index, such a session is read whole at open; `sessiontree tree` (or the viewer)
    // makes its sidecar index, and every later open resumes through it.
    const { dir, resume, whole } = copies(false);
    const expected = SessionManager.open(whole, undefined, undefined, { open: "whole" });
    const wanted = texts(expected.buildSessionContext().messages);
    expected.close();
    assert.equal(wanted.length, 8, "the whole read keeps the glued answer and the chain after it");
    const before = SessionManager.open(resume);
    assert.deepEqual(texts(before.buildSessionContext().messages), wanted, "before any index");
    before.close();
    const [drawn] = runScenario(dir, [
      { args: ["tree", resume], env: cliEnv(dir, { SESSIONTREE_CACHE_DIR: CACHE }) },
    ]);
    assert.equal(drawn?.code, 0, drawn?.stderr);
    const after = SessionManager.open(resume);
    assert.deepEqual(texts(after.buildSessionContext().messages), wanted, "after `tree` indexed the file");
    after.close();
  });
});

describe("a tool call that names no arguments", () => {
  // pi's providers always write `arguments`, but other writers of pi-format files leave it out for a
  // tool that takes none; pi reads the session, and so do `show`, `tree`, `fsck` and `export --html`.
  const text = lines([
    HEADER,
    user("u1", null, 1, "What time is it?"),
    reply("a1", "u1", 2, {
      content: [{ type: "toolCall", id: "call_now", name: "current_time" }],
      stopReason: "toolUse",
    }),
    message("t1", "a1", 3, {
      role: "toolResult",
      toolCallId: "call_now",
      toolName: "current_time",
      content: [{ type: "text", text: "12:00" }],
      isError: false,
    }),
    reply("a2", "t1", 4),
  ]);

  test("every reading command handles it, the Markdown export included", () => {
    const dir = fresh();
    const path = join(dir, "no-args.jsonl");
    writeFileSync(path, text);
    assert.equal(PiSessionManager.open(path).buildSessionContext().messages.length, 4);
    const calls = [
      ["show", path],
      ["tree", path],
      ["fsck", path],
      ["export", path, "--format", "json"],
      ["export", path],
    ];
    const results = runScenario(
      dir,
      calls.map((args) => ({ args })),
    );
    results.forEach((result, i) => {
      assert.equal(result.code, 0, `${calls[i]?.join(" ")}: ${result.stdout}${result.stderr}`);
    });
    // No arguments are shown as none, as `show` shows them.
    assert.match(results[4]?.stdout ?? "", /\*\*Tool call\*\* `current_time`\n```\n\{\}\n```/);
  });
});

describe("a damaged first line before an intact header", () => {
  // A writer died while writing the header, and on its next start wrote the session again after a
  // newline. pi skips the line it cannot parse and reads the session under its header (id, cwd,
  // parentSession). So does ours: a line holding no record does not take the header's place when
  // a header follows before any entry. The damaged line is reported (fsck), and `repair` keeps that
  // header, leaving out only the damaged line (listed, and kept in the backup).
  test("read under the header that follows, as pi reads it; repair keeps that header and drops only the damaged line", () => {
    const dir = fresh();
    const header = {
      ...HEADER,
      parentSession: "/home/dev/.pi/agent/sessions/--home-dev-shop--/2025-12-31T23-00-00-000Z_parent.jsonl",
    };
    const text = `${JSON.stringify(header).slice(0, 40)}\n${lines([header, ...body])}`;
    // Named as pi names its files, so the id could even be taken from the name: the cwd cannot.
    const path = join(dir, `2026-01-01T00-00-00-000Z_${HEADER.id}.jsonl`);
    writeFileSync(path, text);
    writeFileSync(join(dir, "pi.jsonl"), text);
    const pi = PiSessionManager.open(join(dir, "pi.jsonl"));
    assert.deepEqual(pi.getHeader(), header);
    const ours = SessionManager.open(path);
    assert.deepEqual(ours.getHeader(), header);
    assert.deepEqual(ours.buildSessionContext().messages, pi.buildSessionContext().messages);
    assert.deepEqual(
      ours.getIssues().map((issue) => [issue.code, issue.line]),
      [["invalid_json", 1]],
    );
    ours.close();
    const report = repairFile(path);
    assert.equal(report.changed, true);
    assert.deepEqual(
      report.actions.map((action) => [action.kind, action.line]),
      [["dropped_line", 1]],
    );
    assert.equal(
      readFileSync(report.backupPath as string, "utf8"),
      text,
      "the backup holds the damaged line",
    );
    const repaired = PiSessionManager.open(path);
    assert.deepEqual(repaired.getHeader(), header, "the repaired file keeps the header it held");
    assert.deepEqual(repaired.buildSessionContext(), pi.buildSessionContext());
  });
});

describe("a header of a newer format version, and an assistant message that names no model", () => {
  test("repair leaves a clean file of a newer version as it is: never written as an older one", () => {
    const dir = fresh();
    const path = join(dir, "v4.jsonl");
    const text = lines([{ ...HEADER, version: 4 }, ...body]);
    writeFileSync(path, text);
    const report = repairFile(path);
    assert.equal(report.changed, false);
    assert.equal(readFileSync(path, "utf8"), text);
  });

  test("`show` prints the model it knows, never `undefined`", () => {
    const dir = fresh();
    const path = join(dir, "no-model.jsonl");
    const { provider: _p, model: _m, ...unnamed } = reply("a1", "u1", 2).message as Rec;
    writeFileSync(path, lines([HEADER, user("u1", null, 1), { ...reply("a1", "u1", 2), message: unnamed }]));
    const [shown] = runScenario(dir, [{ args: ["show", path] }]);
    assert.equal(shown?.code, 0, shown?.stderr);
    assert.doesNotMatch(shown?.stdout ?? "", /undefined/);
    assert.match(shown?.stdout ?? "", /model unknown/);
  });
});
