import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import * as piRoot from "@mariozechner/pi-coding-agent";
import type { SessionIssue } from "../../src/index.js";
import * as root from "../../src/index.js";
import { messageMaker } from "../support/messages.js";

/**
 * pi's module-level session functions, ours against pi 0.73.1's on the same input: the output must
 * be deep-equal, except where ours keeps what pi drops (each such case says so and checks both).
 */
type Piece = Record<string, unknown>;
type PiSessionModule = {
  findMostRecentSession(dir: string): string | null;
  getDefaultSessionDir(cwd: string, agentDir?: string): string;
  loadEntriesFromFile(path: string): unknown[];
};
// Not re-exported by pi's package root, and pi's `exports` map hides the subpath: load the file.
const piSessionUrl = new URL(
  "./core/session-manager.js",
  import.meta.resolve("@mariozechner/pi-coding-agent"),
).href;
const piModule = (await import(piSessionUrl)) as PiSessionModule & Record<string, unknown>;

const tmp = mkdtempSync(join(tmpdir(), "st-pi-functions-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
const { user, assistant } = messageMaker();

const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");

const lines = (...records: unknown[]) => records.map((r) => (typeof r === "string" ? r : JSON.stringify(r)));
const header = (fields: Piece = {}) => ({
  type: "session",
  version: 3,
  id: "s1",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
  ...fields,
});
const entry = (id: string, parentId: string | null, fields: Piece = {}) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: user(`text ${id}`),
  ...fields,
});
/** A v1 entry: no id, no parent. */
const v1 = (fields: Piece) => ({ type: "message", timestamp: "2025-01-01T00:00:00.000Z", ...fields });

describe("the package root exports pi's session-manager module", () => {
  test("every runtime name of pi's session-manager module and its root's session names", () => {
    const ours = new Set(Object.keys(root));
    const missing = Object.keys(piModule).filter((name) => !ours.has(name));
    assert.deepEqual(missing, []);
    for (const name of [
      "getAgentDir",
      "parseSessionEntries",
      "migrateSessionEntries",
      "getLatestCompactionEntry",
    ])
      assert.ok(name in piRoot && ours.has(name), name);
    assert.equal(root.CURRENT_SESSION_VERSION, piRoot.CURRENT_SESSION_VERSION);
  });
});

describe("parseSessionEntries", () => {
  const same = (content: string) =>
    assert.deepEqual(root.parseSessionEntries(content), piRoot.parseSessionEntries(content));

  test("empty and blank content", () => {
    for (const content of ["", "\n", "  \n\n\t\n", "\r\n"]) same(content);
  });

  test("a session with blank lines, CRLF, surrounding spaces and no final newline", () => {
    const body = lines(header(), entry("a", null), entry("b", "a"));
    same(`${body.join("\n")}\n`);
    same(`\n\n${body.join("\r\n")}`);
    same(`  ${body[0]}  \n\n${body[1]}\n   \n${body[2]}`);
  });

  test("malformed lines are left out, as pi does, and reported to the listener", () => {
    const content = lines(header(), "{not json", entry("a", null), '{"type":"message","id":"t', "").join(
      "\n",
    );
    same(content);
    const issues: SessionIssue[] = [];
    root.parseSessionEntries(content, (issue) => issues.push(issue));
    assert.deepEqual(
      issues.map((i) => [i.code, i.line]),
      [
        ["invalid_json", 2],
        ["invalid_json", 4],
      ],
    );
  });

  test("JSON that is not an entry is kept as it is, as pi does (checking is the reader's job)", () => {
    same(lines(header(), "5", "null", "[1,2]", '"text"', { type: "message" }, { whatever: true }).join("\n"));
  });

  test("v1 and v2 content comes back as written (migration is separate)", () => {
    same(lines(header({ version: undefined }), v1({ message: user("hi") })).join("\n"));
    same(lines(header({ version: 2 }), entry("a", null, { message: { role: "hookMessage" } })).join("\n"));
  });

  test("two records glued on one line: both kept (pi loses the line), and the split reported", () => {
    const records = [header(), entry("a", null), entry("b", "a"), entry("c", "b")];
    const [h, a, b, c] = lines(...records);
    const content = [h, `${a}${b}`, c].join("\n");
    const pi = piRoot.parseSessionEntries(content);
    const issues: SessionIssue[] = [];
    const ours = root.parseSessionEntries(content, (issue) => issues.push(issue));
    assert.deepEqual(pi, [records[0], records[3]]);
    assert.deepEqual(ours, records);
    assert.deepEqual(
      issues.map((i) => [i.code, i.line]),
      [["glued_records", 2]],
    );
  });
});

/** Ids renamed by first appearance, so pi's random v1 ids compare with ours. */
function normalizeIds(records: readonly unknown[]): unknown[] {
  const names = new Map<string, string>();
  for (const r of records) {
    const id = (r as Piece).id;
    if ((r as Piece).type !== "session" && typeof id === "string" && !names.has(id))
      names.set(id, `#${names.size}`);
  }
  const rename = (value: unknown) => (typeof value === "string" ? (names.get(value) ?? value) : value);
  return records.map((r) => {
    const copy = { ...(r as Piece) };
    if (copy.type === "session") return copy;
    for (const key of ["id", "parentId", "firstKeptEntryId", "fromId", "targetId"])
      if (key in copy) copy[key] = rename(copy[key]);
    return copy;
  });
}

/** Both implementations migrate their own parse of `content`; returns both, migrated. */
function migrateBoth(records: readonly unknown[]): { ours: unknown[]; pi: unknown[] } {
  const ours = structuredClone(records) as root.FileEntry[];
  const pi = structuredClone(records) as piRoot.FileEntry[];
  root.migrateSessionEntries(ours);
  piRoot.migrateSessionEntries(pi);
  return { ours, pi };
}

describe("migrateSessionEntries", () => {
  test("v3 and empty input are left untouched", () => {
    for (const records of [[], [header(), entry("a", null), entry("b", "a")]]) {
      const { ours, pi } = migrateBoth(records);
      assert.deepEqual(ours, pi);
      assert.deepEqual(ours, records);
    }
  });

  test("v2: hookMessage becomes custom, the header v3, ids kept", () => {
    const records = [
      header({ version: 2 }),
      entry("a", null, { message: { role: "hookMessage", content: "x" } }),
    ];
    const { ours, pi } = migrateBoth(records);
    assert.deepEqual(ours, pi);
    assert.equal((ours[1] as { message: { role: string } }).message.role, "custom");
  });

  test("v1: ids chained in order, compaction indexes turned into ids (pointing at the header: none)", () => {
    const records = [
      header({ version: undefined }),
      v1({ message: user("one") }),
      v1({ message: assistant("two") }),
      v1({ message: { role: "hookMessage", content: "h" } }),
      {
        type: "compaction",
        timestamp: "2025-01-01T00:00:00.000Z",
        summary: "s",
        tokensBefore: 9,
        firstKeptEntryIndex: 2,
      },
      {
        type: "compaction",
        timestamp: "2025-01-01T00:00:00.000Z",
        summary: "s",
        tokensBefore: 9,
        firstKeptEntryIndex: 0,
      },
      v1({ message: user("three") }),
    ];
    const { ours, pi } = migrateBoth(records);
    assert.deepEqual(normalizeIds(ours), normalizeIds(pi));
    assert.equal((ours[4] as Piece).firstKeptEntryId, (ours[2] as Piece).id);
    assert.ok(!("firstKeptEntryId" in (ours[5] as Piece)));
    // Ours names v1 entries alike on every reading; pi draws new ids each time.
    assert.deepEqual(ours, migrateBoth(records).ours);
  });

  test("v1 records without a header, or with the header elsewhere: indexes count array places", () => {
    const compaction = {
      type: "compaction",
      timestamp: "t",
      summary: "s",
      tokensBefore: 1,
      firstKeptEntryIndex: 1,
    };
    for (const records of [
      [v1({ message: user("a") }), v1({ message: user("b") }), compaction],
      [
        v1({ message: user("a") }),
        header({ version: 1 }),
        v1({ message: user("b") }),
        { ...compaction, firstKeptEntryIndex: 2 },
      ],
    ]) {
      const { ours, pi } = migrateBoth(records);
      assert.deepEqual(normalizeIds(ours), normalizeIds(pi));
      const kept = (ours.at(-1) as Piece).firstKeptEntryId;
      assert.equal(kept, (ours.at(-2) as Piece).id);
    }
  });

  test("headerless records that carry ids keep their tree (pi renumbers them into one chain)", () => {
    const records = [
      entry("a", null),
      entry("b", "a"),
      entry("c", "a", { message: { role: "hookMessage" } }),
    ];
    const { ours, pi } = migrateBoth(records);
    assert.deepEqual(
      ours.map((r) => [(r as Piece).id, (r as Piece).parentId]),
      [
        ["a", null],
        ["b", "a"],
        ["c", "a"],
      ],
    );
    assert.equal((ours[2] as { message: { role: string } }).message.role, "custom");
    assert.notEqual((pi[2] as Piece).parentId, "a", "pi flattens the tree");
  });

  test("pi's real v1 sessions migrate and project alike", () => {
    for (const name of ["before-compaction.jsonl", "large-session.jsonl"]) {
      const content = readFileSync(join(FIXTURES, name), "utf8");
      const parsed = root.parseSessionEntries(content);
      assert.deepEqual(parsed, piRoot.parseSessionEntries(content), name);
      const { ours, pi } = migrateBoth(parsed);
      assert.deepEqual(normalizeIds(ours), normalizeIds(pi), name);
      const oursEntries = ours.slice(1) as root.SessionEntry[];
      const piEntries = pi.slice(1) as piRoot.SessionEntry[];
      for (const i of [undefined, 0, 10, 600, oursEntries.length - 1]) {
        const leaf = (list: { id: string }[]) => (i === undefined ? undefined : list[i]?.id);
        assert.deepEqual(
          root.buildSessionContext(oursEntries, leaf(oursEntries)),
          piRoot.buildSessionContext(piEntries, leaf(piEntries)),
          `${name} at ${i}`,
        );
      }
    }
  });
});

describe("getLatestCompactionEntry and buildSessionContext over entries", () => {
  /** A session built by pi itself: settings, a compaction, a branch with a summary, labels. */
  function piSession() {
    const sm = piRoot.SessionManager.inMemory("/w");
    const first = sm.appendMessage(user("first"));
    sm.appendThinkingLevelChange("high");
    sm.appendMessage(assistant("reply") as never);
    const kept = sm.appendMessage(user("kept"));
    sm.appendModelChange("openai", "gpt-5");
    sm.appendCompaction("summary one", kept, 100);
    const afterCompaction = sm.appendMessage(user("after"));
    sm.appendCustomMessageEntry("ext", "custom text", true, { d: 1 });
    sm.appendLabelChange(first, "start");
    sm.appendCompaction("summary two", afterCompaction, 200);
    sm.branchWithSummary(first, "what was left behind");
    sm.appendMessage(user("on the branch"));
    sm.branchWithSummary(null, "");
    sm.appendSessionInfo("named");
    return sm.getEntries();
  }

  test("getLatestCompactionEntry: the last compaction in array order, or null", () => {
    const entries = piSession();
    const ours = root.getLatestCompactionEntry(entries as root.SessionEntry[]);
    assert.equal(ours, piRoot.getLatestCompactionEntry(entries));
    assert.equal(ours?.summary, "summary two");
    assert.equal(root.getLatestCompactionEntry([]), piRoot.getLatestCompactionEntry([]));
    const none = entries.filter((e) => e.type !== "compaction");
    assert.equal(root.getLatestCompactionEntry(none as root.SessionEntry[]), null);
    assert.equal(piRoot.getLatestCompactionEntry(none), null);
  });

  test("buildSessionContext: every leaf, null, none, an unknown id, and a given index", () => {
    const entries = piSession();
    const ours = entries as root.SessionEntry[];
    const byId = new Map(entries.map((e) => [e.id, e]));
    const leaves: (string | null | undefined)[] = [undefined, null, "nope", ...entries.map((e) => e.id)];
    for (const leaf of leaves) {
      const expected = piRoot.buildSessionContext(entries, leaf);
      assert.deepEqual(root.buildSessionContext(ours, leaf), expected, `leaf ${leaf}`);
      assert.deepEqual(root.buildSessionContext(ours, leaf, byId as never), expected, `leaf ${leaf}, byId`);
    }
    assert.deepEqual(root.buildSessionContext([]), piRoot.buildSessionContext([]));
  });
});

describe("loadEntriesFromFile and findMostRecentSession", () => {
  const dir = join(tmp, "files");
  mkdirSync(dir);
  const write = (name: string, content: string, mtime?: number) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    if (mtime) utimesSync(path, mtime, mtime);
    return path;
  };
  const good = write("a_1.jsonl", `${lines(header(), "oops", entry("a", null)).join("\n")}\n`, 1_000_000);
  const newer = write(
    "b_2.jsonl",
    `${lines(header({ id: "s2" }), entry("b", null)).join("\n")}\n`,
    2_000_000,
  );
  write("c_3.jsonl", `${lines(entry("x", null)).join("\n")}\n`, 3_000_000);
  write("d_4.jsonl", "", 4_000_000);
  write("e_5.txt", `${lines(header({ id: "s5" })).join("\n")}\n`, 5_000_000);

  test("loadEntriesFromFile: a session's records; nothing for a missing, empty or headerless file", () => {
    for (const name of ["a_1.jsonl", "b_2.jsonl", "c_3.jsonl", "d_4.jsonl", "missing.jsonl"]) {
      const path = join(dir, name);
      assert.deepEqual(root.loadEntriesFromFile(path), piModule.loadEntriesFromFile(path), name);
    }
    assert.equal(root.loadEntriesFromFile(good).length, 2);
  });

  test("findMostRecentSession: the newest file with a session header, or null", () => {
    assert.equal(root.findMostRecentSession(dir), piModule.findMostRecentSession(dir));
    assert.equal(root.findMostRecentSession(dir), newer);
    for (const other of [join(tmp, "none"), good]) {
      assert.equal(root.findMostRecentSession(other), null);
      assert.equal(piModule.findMostRecentSession(other), null);
    }
  });

  test("findMostRecentSession: a header over 512 bytes does not hide a session (it does in pi)", () => {
    const own = join(tmp, "long-header");
    mkdirSync(own);
    const path = join(own, "x_1.jsonl");
    writeFileSync(path, `${JSON.stringify(header({ cwd: `/${"deep/".repeat(120)}` }))}\n`);
    assert.equal(root.findMostRecentSession(own), path);
    assert.equal(piModule.findMostRecentSession(own), null);
  });
});

describe("getAgentDir and getDefaultSessionDir", () => {
  const saved = { home: process.env.HOME, agent: process.env.PI_CODING_AGENT_DIR };
  after(() => {
    process.env.HOME = saved.home;
    if (saved.agent === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved.agent;
  });

  test("the agent directory as pi computes it: env (with ~), else ~/.pi/agent", () => {
    process.env.HOME = join(tmp, "home");
    for (const value of [undefined, "~", "~/elsewhere/agent", join(tmp, "agent"), "relative/agent"]) {
      if (value === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = value;
      assert.equal(root.getAgentDir(), piRoot.getAgentDir(), String(value));
    }
    assert.equal(root.getAgentDir({}), join(homedir(), ".pi", "agent"));
  });

  test("pi's folder of a cwd, created as pi creates it", () => {
    const agentDir = join(tmp, "agent-dirs");
    for (const cwd of ["/work/a", "/a/b-c", "/a-b/c", "C:\\Users\\x", "/"]) {
      const ours = root.getDefaultSessionDir(cwd, agentDir);
      rmSync(ours, { recursive: true, force: true });
      assert.equal(ours, piModule.getDefaultSessionDir(cwd, agentDir), cwd);
      rmSync(ours, { recursive: true, force: true });
      assert.equal(root.getDefaultSessionDir(cwd, agentDir), ours);
      assert.ok(existsSync(ours), `${cwd}: created`);
    }
    process.env.PI_CODING_AGENT_DIR = join(tmp, "env-agent");
    assert.equal(root.getDefaultSessionDir("/p"), piModule.getDefaultSessionDir("/p"));
  });
});
