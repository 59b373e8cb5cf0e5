import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, describe, test } from "node:test";
import pc from "picocolors";
import type { AgentEvent } from "../../src/agent/index.js";
import { COMMANDS } from "../../src/cli/chat/commands.js";
import { ChatRenderer } from "../../src/cli/chat/render.js";
import { type ChatOptions, runChat } from "../../src/cli/commands/chat-run.js";
import { SessionManager } from "../../src/session/session-manager.js";

/** `sessiontree chat` in-process on piped input with the scripted model: commands and what resume shows. */

const base = mkdtempSync(join(tmpdir(), "sessiontree-chat-commands-"));
const root = join(base, "root");
const cwd = join(base, "project");
mkdirSync(cwd, { recursive: true });
after(() => rmSync(base, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what is removed.
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

async function chat(options: ChatOptions, lines: string[]): Promise<string> {
  const input = new PassThrough();
  let printed = "";
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      printed += chunk.toString();
      done();
    },
  });
  input.end(`${lines.join("\n")}\n`);
  await runChat({ root, provider: "scripted", ...options }, { input, output, cwd });
  return plain(printed);
}

describe("chat commands", () => {
  test("/help has a line per command; /thinking without a level lists the levels", async () => {
    const printed = await chat({}, ["/help", "/thinking", "/thinking low", "/thinking", "/quit"]);
    for (const [name] of COMMANDS)
      assert.match(printed, new RegExp(`^(> )?${name.replace(/[[\]]/g, "\\$&")} +\\S`, "m"));
    assert.match(printed, /thinking levels: \[off\] minimal low medium high xhigh/);
    assert.match(printed, /thinking levels: off minimal \[low\] medium high xhigh/);
  });

  test("/tree marks the leaf; /checkout moves there; a status line follows each reply", async () => {
    const first = await chat({}, ["first", "second", "/tree", "/quit"]);
    assert.match(
      first,
      /\[turn ↑[\d,]+ ↓[\d,]+ cost n\/a · session ↑[\d,]+ ↓[\d,]+ cost n\/a · context [\d,]+\/128,000 \(\d+%\)\]/,
    );
    const firstReply = first.match(/^ +([0-9a-f]{8}) assistant: \(scripted\) You said: first/m)?.[1];
    assert.ok(firstReply, first);
    assert.match(first, /^\* +[0-9a-f]{8} assistant: \(scripted\) You said: second/m);
    assert.match(first, /\* = you are here \([0-9a-f]{8}\); \/checkout ID moves there/);
    const id = first.match(/session ([0-9a-f-]{36})/)?.[1] as string;
    const second = await chat({ resume: id }, [`/checkout ${firstReply.slice(0, 5)}`, "/tree", "/quit"]);
    assert.match(second, new RegExp(`leaf → ${firstReply}`));
    assert.match(second, new RegExp(`^\\* +${firstReply} assistant`, "m"));
  });

  test("thinking is a block apart, or one line with --hide-thinking", async () => {
    const shown = await chat({}, ["/thinking high", "ponder", "/quit"]);
    assert.match(shown, /┊ [^\n]+\n[\s\S]*\(scripted\) You said: ponder/);
    const hidden = await chat({ hideThinking: true }, ["/thinking high", "ponder", "/quit"]);
    assert.match(hidden, /\(thinking…\)\n\(scripted\) You said: ponder/);
    assert.doesNotMatch(hidden, /┊/);
  });
});

describe("the renderer with colours on or off", () => {
  const reply = { role: "assistant", content: [], api: "x", provider: "x", model: "x" } as never;
  const events = (kinds: ["thinking" | "text", string][]): AgentEvent[] => [
    { type: "message_start", message: reply },
    ...kinds.map(
      ([kind, text]) => ({ type: "message_update", message: reply, delta: { kind, text } }) as const,
    ),
    { type: "message_end", message: reply },
  ];
  function render(colors: boolean, hideThinking: boolean): string {
    let printed = "";
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        printed += chunk.toString();
        done();
      },
    });
    const renderer = new ChatRenderer(output, { hideThinking, colors: pc.createColors(colors) });
    for (const event of events([
      ["thinking", "hmm\nyes"],
      ["text", "the answer"],
    ]))
      renderer.onEvent(event);
    return plain(printed);
  }

  // A colour's closing code written after a newline once made the renderer add a blank line.
  for (const colors of [false, true]) {
    test(`colours ${colors ? "on" : "off"}: the same lines`, () => {
      assert.equal(render(colors, true), "(thinking…)\nthe answer\n");
      assert.equal(render(colors, false), "┊ hmm\n┊ yes\nthe answer\n");
    });
  }
});

describe("compaction notices", () => {
  function notice(event: AgentEvent): string {
    let printed = "";
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        printed += chunk.toString();
        done();
      },
    });
    new ChatRenderer(output, { colors: pc.createColors(false) }).onEvent(event);
    return printed;
  }

  test("before a prompt, and after the model refused the context as too long", () => {
    const start = { type: "compaction_start", tokens: 6389, contextWindow: 8000 } as const;
    assert.equal(notice({ ...start, reason: "auto" }), "[context ~6,389 of 8,000 tokens: compacting…]\n");
    assert.equal(
      notice({ ...start, reason: "overflow" }),
      "[the model refused the context as too long (~6,389 of 8,000 tokens estimated): compacting, then trying again…]\n",
    );
  });
});

describe("resume shows where you are", () => {
  test("the last turns, and a reply a crash cut short", async () => {
    const manager = SessionManager.create(cwd, undefined, { root });
    for (const n of [1, 2, 3, 4]) {
      manager.appendMessage({ role: "user", content: `question ${n}`, timestamp: n });
      if (n < 4)
        manager.appendMessage({
          role: "assistant",
          content: [{ type: "text", text: `## Answer ${n}\n- **point** ${n}` }],
          api: "scripted",
          provider: "scripted",
          model: "scripted-1",
          stopReason: "stop",
          timestamp: n,
        } as never);
    }
    const id = manager.getSessionId();
    manager.close();
    const printed = await chat({ resume: id }, ["/quit"]);
    assert.match(
      printed,
      /── last 3 of 4 prompts ──\n {2}\(earlier turns: \/tree\)\n> question 2\nAnswer 2\n• point 2\n> question 3/,
    );
    assert.doesNotMatch(printed, /question 1/);
    assert.match(printed, /> question 4\n──\n⚠ The last reply was cut by a crash before it was complete/);
  });

  test("a tool call a crash left without result", async () => {
    const manager = SessionManager.create(cwd, undefined, { root });
    manager.appendMessage({ role: "user", content: "run it", timestamp: 1 });
    manager.appendMessage({
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "make" } }],
      api: "scripted",
      provider: "scripted",
      model: "scripted-1",
      stopReason: "toolUse",
      timestamp: 2,
    } as never);
    const id = manager.getSessionId();
    manager.close();
    const printed = await chat({ resume: id }, ["/quit"]);
    assert.match(printed, /\[tool\] bash \$ make\n\[result error\] Interrupted/);
    assert.match(printed, /⚠ The last turn was cut by a crash: bash may or may not have run/);
  });

  test("a new chat shows no transcript", async () => {
    const printed = await chat({}, ["/quit"]);
    assert.doesNotMatch(printed, /── last/);
  });
});
