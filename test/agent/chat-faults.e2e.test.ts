import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { type ChatOptions, runChat } from "../../src/cli/commands/chat-run.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { type FakeOpenAi, startFakeOpenAi } from "./fixtures/fake-openai.js";

/**
 * `sessiontree chat` run in-process on piped input (its run function with fake stdin/stdout, the
 * same code the terminal runs), against the loopback fake OpenAI server; every request to anything
 * but the loopback is caught and refused, so a leak to a public endpoint is seen, not sent.
 */

const base = mkdtempSync(join(tmpdir(), "sessiontree-chat-faults-"));
const root = join(base, "root");
const cwd = join(base, "project");
mkdirSync(cwd, { recursive: true });
let fake: FakeOpenAi;
const leaked: string[] = [];
const realFetch = globalThis.fetch;

before(async () => {
  fake = await startFakeOpenAi();
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith("http://127.0.0.1:")) {
      leaked.push(url);
      // A 400 (not a network error, which the agent would retry): refused at once, visibly.
      return new Response(JSON.stringify({ error: { message: "test: no request may leave the loopback" } }), {
        status: 400,
      });
    }
    return realFetch(input, init);
  }) as typeof fetch;
});
after(async () => {
  globalThis.fetch = realFetch;
  await fake.close();
  rmSync(base, { recursive: true, force: true });
});

/** Runs one chat to the end of `lines` (the last one should be /quit); returns what it printed. */
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
  await runChat({ root, ...options }, { input, output, cwd });
  return printed;
}

const sessionIdOf = (printed: string) => printed.match(/session ([0-9a-f-]{36})/)?.[1] as string;

async function entriesOf(id: string): Promise<SessionEntry[]> {
  const info = (await SessionManager.listAll(undefined, { root })).find((s) => s.id === id);
  const manager = SessionManager.open((info as { path: string }).path);
  try {
    return manager.getEntries();
  } finally {
    manager.close();
  }
}

const modelOf = (body: string | undefined) => (JSON.parse(body as string) as { model: string }).model;

describe("chat --continue keeps the session's model (defect 4)", () => {
  test("--provider openai without --model: no model_change, the session's model answers", async () => {
    const first = await chat({ provider: "openai", model: "gpt-special", baseUrl: fake.url }, [
      "hello",
      "/quit",
    ]);
    const id = sessionIdOf(first);
    assert.equal(modelOf(fake.bodies.at(-1)), "gpt-special");
    const changesBefore = (await entriesOf(id)).filter((e) => e.type === "model_change").length;

    const resumed = await chat({ continue: true, provider: "openai", baseUrl: fake.url }, ["again", "/quit"]);
    assert.equal(sessionIdOf(resumed), id);
    assert.match(resumed, /model openai\/gpt-special/);
    assert.equal(modelOf(fake.bodies.at(-1)), "gpt-special");
    const changes = (await entriesOf(id)).filter((e) => e.type === "model_change").length;
    assert.equal(changes, changesBefore, "no model_change was written");

    const named = await chat({ continue: true, provider: "openai", model: "gpt-other", baseUrl: fake.url }, [
      "third",
      "/quit",
    ]);
    assert.match(named, /model openai\/gpt-other/);
    assert.equal(modelOf(fake.bodies.at(-1)), "gpt-other");
  });
});

describe("a --base-url holds for the chat (defect 5)", () => {
  test("/model to another provider says where it would send and asks; no keeps the base URL", async () => {
    const requests = fake.bodies.length;
    const printed = await chat({ provider: "openai", model: "gpt-local", baseUrl: fake.url }, [
      "/model anthropic/claude-test",
      "n",
      "still local?",
      "/quit",
    ]);
    assert.match(printed, new RegExp(`This chat sends to ${fake.url.replace(/[/.]/g, "\\$&")}`));
    assert.match(printed, /anthropic would send the conversation to https:\/\/api\.anthropic\.com/);
    assert.match(printed, /Send to https:\/\/api\.anthropic\.com\? \[y\/N\]/);
    assert.match(printed, /model unchanged: openai\/gpt-local/);
    assert.deepEqual(leaked, []);
    assert.equal(fake.bodies.length, requests + 1);
    assert.match(fake.bodies.at(-1) as string, /still local\?/);
    assert.doesNotMatch(fake.bodies.at(-1) as string, /"n"/, "the answer is not a prompt");
  });

  test("a yes switches, and only then does a request go to the public endpoint", async () => {
    const printed = await chat({ provider: "openai", model: "gpt-local", baseUrl: fake.url }, [
      "/model anthropic/claude-test",
      "y",
      "now public",
      "/quit",
    ]);
    assert.match(printed, /model anthropic\/claude-test at https:\/\/api\.anthropic\.com/);
    assert.deepEqual(leaked, ["https://api.anthropic.com/v1/messages"]);
    leaked.length = 0;
  });

  test("resuming with --base-url and no --provider sends the session's provider there", async () => {
    const first = await chat({ provider: "openai", model: "gpt-local", baseUrl: fake.url }, ["one", "/quit"]);
    const requests = fake.bodies.length;
    const saved = { openai: process.env.OPENAI_API_KEY, anthropic: process.env.ANTHROPIC_API_KEY };
    process.env.ANTHROPIC_API_KEY = "k-test";
    delete process.env.OPENAI_API_KEY;
    try {
      const resumed = await chat({ resume: sessionIdOf(first), baseUrl: fake.url }, ["two", "/quit"]);
      assert.match(resumed, new RegExp(`model openai/gpt-local · ${fake.url.replace(/[/.]/g, "\\$&")}`));
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        const key = `${name.toUpperCase()}_API_KEY`;
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    assert.equal(fake.bodies.length, requests + 1);
    assert.deepEqual(leaked, []);
  });
});

describe("retries in the chat (item 8)", () => {
  test("a 429 shows a retry line, then the reply; a prompt that finally failed is rewound", async () => {
    const now = { "retry-after": "0" };
    const fail = { kind: "status", status: 503, headers: now } as const;
    fake.faults.push({ kind: "status", status: 429, headers: now }, { kind: "none" }, fail, fail, fail, fail);
    const printed = await chat({ provider: "openai", model: "gpt-local", baseUrl: fake.url }, [
      "first",
      "doomed",
      "second",
      "/quit",
    ]);
    assert.match(printed, /\[retry 1\/3 in 0s\] HTTP 429[^\n]*\n[\s\S]*You said: first/);
    assert.match(printed, /\[error\] HTTP 503/);
    assert.match(printed, /the failed prompt stays in \/tree as [0-9a-f]{8} but is out of the context/);
    assert.match(printed, /You said: second/);
    const last = fake.bodies.at(-1) as string;
    assert.match(last, /first/);
    assert.doesNotMatch(last, /doomed/);
  });
});
