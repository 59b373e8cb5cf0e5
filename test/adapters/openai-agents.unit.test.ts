import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type AgentInputItem, MemorySession, type Session } from "@openai/agents";
import { SessionTreeSession } from "../../src/adapters/openai-agents/index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { agentsRunner, turn } from "./fixtures/agents.js";
import { startFakeOpenAiApi } from "./fixtures/fake-openai-api.js";
import { assertPiSeesSameContext } from "./fixtures/pi-check.js";
import { storeKinds } from "./fixtures/stores.js";

const OWNER = "alice";
const MODEL = { provider: "openai", model: "gpt-4.1", api: "openai-responses" };

/**
 * The same conversation through the Runner, once over the SDK's MemorySession and once over
 * sessiontree: two turns (the second calls a tool), a rewind of the tool turn with popItem, a turn
 * on the new branch, a restart (`reopen` gives a new Session over the same storage), a streamed
 * turn. Each side talks to its own fake, so the requests, and so every item, must be identical.
 */
async function script(first: Session, reopen: () => Promise<Session>) {
  const fake = await startFakeOpenAiApi();
  try {
    const { runner, agent } = agentsRunner(fake.url);
    const outputs: unknown[] = [];
    outputs.push(await turn(runner, agent, "hello", first));
    outputs.push(await turn(runner, agent, 'call weather {"city":"Oslo"}', first));
    const toolBranch = await first.getItems();
    const popped: Array<AgentInputItem | undefined> = [];
    for (let i = 0; i < 4; i++) popped.push(await first.popItem());
    outputs.push(await turn(runner, agent, "and tomorrow?", first));
    const session = await reopen();
    outputs.push(await turn(runner, agent, "thanks", session, true));
    assert.deepEqual(fake.rejected, [], "the fake API refused a request");
    return { outputs, popped, toolBranch, items: await session.getItems(), requests: fake.requests, session };
  } finally {
    await fake.close();
  }
}

describe("sessiontree/openai-agents under the Runner", async () => {
  const reference = new MemorySession({ sessionId: "reference" });
  const expected = await script(reference, async () => reference);
  const kinds = storeKinds();
  after(() => {
    for (const kind of kinds) kind.cleanup();
  });

  test("the reference run went through a tool call and a rewind", () => {
    assert.deepEqual(expected.outputs, [
      "You said: hello",
      "Tool said: sunny in Oslo",
      "You said: and tomorrow?",
      "You said: thanks",
    ]);
    assert.deepEqual(
      expected.popped.map((item) => item?.type ?? "message"),
      ["message", "function_call_result", "function_call", "message"],
    );
  });

  for (const kind of kinds) {
    test(`over the ${kind.name} store: the same requests and items as MemorySession, across a restart`, async () => {
      let store = await kind.open();
      const sessionId = `agents-${kind.name}`;
      const first = new SessionTreeSession({ store, owner: OWNER, sessionId, model: MODEL });
      const ours = await script(first, async () => {
        await store.close();
        store = await kind.open();
        return new SessionTreeSession({ store, owner: OWNER, sessionId, model: MODEL });
      });
      try {
        assert.deepEqual(ours.requests, expected.requests);
        assert.deepEqual(ours.popped, expected.popped);
        assert.deepEqual(ours.items, expected.items);
        assert.deepEqual(ours.toolBranch, expected.toolBranch);
        await assertRewindKeptTheBranch(
          ours.session as SessionTreeSession,
          expected.toolBranch,
          expected.items,
        );
        const pi = await assertPiSeesSameContext(store, kind, OWNER, sessionId);
        pi.cleanup();
      } finally {
        await store.close();
      }
    });
  }

  test("over a SessionManager file: the same items, and the leaf survives reopening the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiontree-agents-manager-"));
    try {
      const manager = SessionManager.create("/project", dir);
      const ours = await script(new SessionTreeSession({ manager, model: MODEL }), async () => {
        const file = manager.getSessionFile() as string;
        return new SessionTreeSession({ manager: SessionManager.open(file, dir), model: MODEL });
      });
      assert.deepEqual(ours.requests, expected.requests);
      assert.deepEqual(ours.items, expected.items);
      await assertRewindKeptTheBranch(
        ours.session as SessionTreeSession,
        expected.toolBranch,
        expected.items,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The popped tool turn is still there, as a branch that can be checked out and back. */
async function assertRewindKeptTheBranch(
  session: SessionTreeSession,
  toolBranch: AgentInputItem[],
  current: AgentInputItem[],
): Promise<void> {
  const branches = await session.listBranches();
  assert.equal(branches.length, 2);
  const old = branches.find((branch) => !branch.current);
  assert.equal(old?.itemCount, toolBranch.length);
  const back = (await session.getItemEntries()).at(-1)?.entryId as string;
  await session.checkout(old?.leafId as string);
  assert.deepEqual(await session.getItems(), toolBranch);
  await session.checkout(back);
  assert.deepEqual(await session.getItems(), current);
}
