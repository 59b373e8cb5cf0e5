// Session content is untrusted (models, tools, imported files, other users of a service): what the
// CLI prints of it must not reach the terminal as control sequences. An OSC sets the window title
// or writes the clipboard (OSC 52), OSC 8 hides a link behind text, CSI clears the screen or moves
// the cursor, `\r` overwrites what was printed, C1 CSI (U+009B) does the same as ESC [, and bidi
// overrides reorder what is read. The program's own colours (SGR, `ESC[…m`) are the only escapes
// allowed on stdout.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pc from "picocolors";
import { ChatRenderer } from "../../src/cli/chat/render.js";
import { resumeView } from "../../src/cli/chat/resume-view.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { cliEnv, runScenario, tempWorkspace } from "./helpers.js";
import type { CliResult } from "./run-main.js";

const ESC = "\u001b";
/**
 * A title change, a screen clear, a clipboard write, a hidden link, an overwrite, a C1 CSI, and
 * colour codes that hide what follows (SGR 8, "concealed": the program itself never writes it).
 */
const CONCEAL = `${ESC}[8m`;
const PAYLOAD = `${ESC}]0;PWNED\u0007${ESC}[2J${ESC}]52;c;ZXZpbA==\u0007${ESC}]8;;http://evil.example/\u0007x${ESC}]8;;\u0007\rOVER\u009b2J${CONCEAL}hidden`;
const BIDI = "\u202Egnp.exe";
const bad = (tag: string) => `${tag}${PAYLOAD}`;
const SESSION_ID = "0194a2b3-0000-7000-8000-0000000000e1";
const TS = "2025-01-01T00:00:00.000Z";

function hostileSession(): object[] {
  return [
    { type: "session", version: 3, id: SESSION_ID, timestamp: TS, cwd: `/work/${bad("CWD")}` },
    // An entry whose id and parent id carry escapes: fsck and tree print ids (first, so
    // the leaf is the last entry and `show` shows the conversation).
    {
      type: "message",
      id: `o${ESC}]0;ID\u0007`,
      parentId: `missing${ESC}[2J`,
      timestamp: TS,
      message: { role: "user", content: "orphan", timestamp: 4 },
    },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: TS,
      message: { role: "user", content: `needle ${bad("USER")} ${BIDI}`, timestamp: 1 },
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: TS,
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: bad("THINK") },
          { type: "text", text: bad("ASSIST") },
          { type: "toolCall", id: "c1", name: bad("TOOL"), arguments: { command: bad("ARG") } },
        ],
        provider: "p",
        model: bad("MODEL"),
        stopReason: "toolUse",
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: "t1",
      parentId: "a1",
      timestamp: TS,
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: bad("TOOL"),
        content: [{ type: "text", text: bad("OUTPUT") }],
        isError: false,
        timestamp: 3,
      },
    },
    { type: "label", id: "l1", parentId: "t1", timestamp: TS, targetId: "a1", label: bad("LABEL") },
    { type: "session_info", id: "n1", parentId: "l1", timestamp: TS, name: bad("NAME") },
  ];
}

/** What is left after the program's own colour codes are taken out must hold no control character. */
function assertNoControls(text: string, what: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: SGR codes are what is removed.
  const withoutColours = text.replace(/\u001b\[[0-9;]*m/g, "");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is found.
  const found = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(withoutColours);
  assert.equal(
    found,
    null,
    `${what} prints a raw control character ${JSON.stringify(found?.[0])} near ${JSON.stringify(
      found ? withoutColours.slice(Math.max(0, found.index - 20), found.index + 30) : "",
    )}`,
  );
}

describe("untrusted session text reaches the terminal without control sequences", () => {
  let ws: ReturnType<typeof tempWorkspace>;
  before(() => {
    ws = tempWorkspace();
    const folder = join(ws.root, "sessions", "--work--");
    mkdirSync(folder, { recursive: true });
    const lines = hostileSession().map((line) => JSON.stringify(line));
    writeFileSync(join(folder, `2025-01-01T00-00-00-000Z_${SESSION_ID}.jsonl`), `${lines.join("\n")}\n`);
  });
  after(() => ws.cleanup());

  const commands: Array<[string, string[]]> = [
    ["ls --all", ["ls", "--all"]],
    ["tree", ["tree", SESSION_ID]],
    ["tree --full", ["tree", SESSION_ID, "--full"]],
    ["show", ["show", SESSION_ID]],
    ["show --full", ["show", SESSION_ID, "--full"]],
    ["stats", ["stats", SESSION_ID]],
    ["search", ["search", "--all", "needle"]],
    ["name", ["name", "--session", SESSION_ID]],
    ["diff", ["diff", "u1", "n1", "--session", SESSION_ID]],
    ["fsck", ["fsck", SESSION_ID]],
  ];

  // Every command in one process per mode (starting the CLI runner costs about a second).
  const results = new Map<string, CliResult>();
  before(() => {
    for (const tty of [false, true]) {
      const answers = runScenario(
        ws.dir,
        commands.map(([, args]) => ({ args, env: cliEnv(ws.dir), tty })),
      );
      for (const [i, [title]] of commands.entries()) results.set(`${title}:${tty}`, answers[i] as CliResult);
    }
  });

  for (const tty of [false, true]) {
    for (const [title] of commands) {
      it(`${title} (${tty ? "terminal, colours" : "pipe"}): no raw escape, C1 or \\r from the session`, () => {
        const result = results.get(`${title}:${tty}`);
        assert.ok(result, "the command ran");
        assertNoControls(result.stdout, `sessiontree ${title} (stdout)`);
        assertNoControls(result.stderr, `sessiontree ${title} (stderr)`);
        const at = result.stdout.indexOf(CONCEAL);
        const near = JSON.stringify(result.stdout.slice(Math.max(0, at - 200), at + 10));
        assert.equal(at, -1, `the session's own colour code reaches the terminal near ${near}`);
      });
    }
  }

  // Data for programs: the session's text comes back exact, not made visible.
  const dataCommands: Array<[string, string[]]> = [
    ["ls --all --json", ["ls", "--all", "--json"]],
    ["name --json", ["name", "--session", SESSION_ID, "--json"]],
    ["export --md", ["export", SESSION_ID, "--md"]],
  ];
  before(() => {
    const answers = runScenario(
      ws.dir,
      dataCommands.map(([, args]) => ({ args, env: cliEnv(ws.dir), tty: true })),
    );
    for (const [i, [title]] of dataCommands.entries()) results.set(title, answers[i] as CliResult);
  });

  it("--json keeps the session's text exact (its escapes are JSON's), with no raw control character", () => {
    for (const title of ["ls --all --json", "name --json"]) {
      const result = results.get(title);
      assert.ok(result, `${title} ran`);
      assert.equal(result.code, 0, result.stderr);
      assertNoControls(result.stdout, `sessiontree ${title}`);
      assert.ok(!result.stdout.includes("\u202E"), `${title}: U+202E raw`);
    }
    const listed = JSON.parse(results.get("ls --all --json")?.stdout ?? "null") as Array<
      Record<string, unknown>
    >;
    const row = listed.find((r) => r.id === SESSION_ID);
    assert.equal(row?.name, bad("NAME"));
    assert.equal(row?.cwd, `/work/${bad("CWD")}`);
    const named = JSON.parse(results.get("name --json")?.stdout ?? "null") as { name: string };
    assert.equal(named.name, bad("NAME"));
  });

  it("export writes the session's text as it is: a file's bytes, not a display", () => {
    const result = results.get("export --md");
    assert.ok(result);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes(bad("USER")), "the user's message, escapes and all");
  });

  it("show: a bidi override (U+202E) in a message is not printed raw", () => {
    const result = results.get("show:true");
    assert.ok(result);
    assert.ok(result.stdout.includes("gnp.exe"), "the message is shown");
    assert.ok(!result.stdout.includes("\u202E"), "U+202E reaches the terminal raw");
  });
});

describe("sessiontree chat: model output, tool results and resumed history", () => {
  const plain = pc.createColors(false);

  it("ChatRenderer: streamed answer text and a tool result carry no escape sequence", () => {
    let out = "";
    const output = {
      write: (s: string) => {
        out += s;
        return true;
      },
      isTTY: true,
    } as unknown as NodeJS.WritableStream & { isTTY?: boolean };
    const renderer = new ChatRenderer(output, { colors: plain });
    const events = [
      { type: "message_start", message: { role: "assistant" } },
      { type: "message_update", delta: { kind: "text", text: `${bad("ANSWER")}\n\n` } },
      { type: "message_end", message: { role: "assistant" } },
      { type: "tool_call_end", result: { content: [{ type: "text", text: bad("RESULT") }], isError: false } },
    ];
    for (const event of events) renderer.onEvent(event as never);
    assertNoControls(out, "chat output");
  });

  it("resumeView: the last turns shown on resume carry no escape sequence", () => {
    const path = [
      {
        type: "message",
        id: "u",
        parentId: null,
        timestamp: TS,
        message: { role: "user", content: bad("USER"), timestamp: 1 },
      },
      {
        type: "message",
        id: "a",
        parentId: "u",
        timestamp: TS,
        message: {
          role: "assistant",
          content: [{ type: "text", text: bad("ANSWER") }],
          provider: "p",
          model: "m",
        },
      },
    ] as unknown as SessionEntry[];
    assertNoControls(resumeView(path).join("\n"), "chat resume view");
  });
});
