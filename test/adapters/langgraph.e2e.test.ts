import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { SessionTreeSaver } from "../../src/adapters/langgraph/index.js";
import { openStore } from "../../src/store/registry.js";
import { startFakeOpenAi } from "../agent/fixtures/fake-openai.js";
import { say, type WeatherGraph, weatherGraph } from "./fixtures/langgraph-graph.js";

const THREAD = "weather-thread";
const MODEL = { provider: "openai", model: "gpt-4o-mini", api: "openai-completions" };

/** A `sessiontree` command run from source, after checking it exited cleanly. */
function sessiontree(...args: string[]): string {
  const run = spawnSync(process.execPath, ["bin/sessiontree.js", ...args], {
    encoding: "utf8",
    env: { ...process.env, SESSIONTREE_FROM_SOURCE: "1", NO_COLOR: "1" },
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

/** What a message is, for comparing two runs (ids are random UUIDs per run). */
function shape(messages: BaseMessage[]): string[] {
  return messages.map((m) => {
    const calls = (m as { tool_calls?: Array<{ name: string; args: unknown }> }).tool_calls ?? [];
    const said = calls.map((c) => ` → ${c.name} ${JSON.stringify(c.args)}`).join("");
    return `${m.getType()}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}${said}`;
  });
}

/**
 * The script both checkpointers run: a tool turn, a plain turn, a restart (a new checkpointer over
 * the same storage, given by `reopen`) and a turn, a rewind to the checkpoint after the first turn
 * with a new question, and a continue on that branch.
 */
async function script(
  url: string,
  open: () => BaseCheckpointSaver,
  reopen: (old: BaseCheckpointSaver) => Promise<BaseCheckpointSaver>,
) {
  const seen: { [step: string]: string[] } = {};
  let saver = open();
  let graph: WeatherGraph = weatherGraph(url, saver);
  seen.tool = shape((await say(graph, THREAD, 'call weather {"city":"Oslo"}')).messages);
  seen.plain = shape((await say(graph, THREAD, "hello")).messages);
  const beforeRestart = (await graph.getState({ configurable: { thread_id: THREAD } })).values
    .messages as BaseMessage[];

  saver = await reopen(saver);
  graph = weatherGraph(url, saver);
  const resumed = (await graph.getState({ configurable: { thread_id: THREAD } })).values
    .messages as BaseMessage[];
  assert.deepEqual(
    JSON.stringify(resumed),
    JSON.stringify(beforeRestart),
    "the restart reads the same messages back",
  );
  seen.afterRestart = shape((await say(graph, THREAD, "after the restart")).messages);

  // The checkpoint where the first turn ended: 4 messages, nothing left to run.
  let target: string | undefined;
  for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: THREAD } })) {
    const count = (snapshot.values.messages as BaseMessage[] | undefined)?.length;
    if (count === 4 && snapshot.next.length === 0)
      target = snapshot.config.configurable?.checkpoint_id as string;
  }
  assert.ok(target, "the end of the first turn is in the history");
  seen.rewound = shape((await say(graph, THREAD, "a different second question", target)).messages);
  seen.continued = shape((await say(graph, THREAD, "and on")).messages);
  return { seen, saver, target };
}

describe("SessionTreeSaver under a real LangGraph StateGraph with ChatOpenAI and a ToolNode", async () => {
  const fake = await startFakeOpenAi({ roleDelta: true });
  const folder = mkdtempSync(join(tmpdir(), "sessiontree-langgraph-"));
  const location = `sqlite:${join(folder, "graphs.db")}`;
  after(async () => {
    await fake.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test("the same conversation as MemorySaver, across a restart, a rewind and a continue; then `sessiontree tree`", async () => {
    const memory = new MemorySaver();
    const reference = await script(
      fake.url,
      () => memory,
      async (old) => old,
    );
    const memoryBodies = fake.bodies.splice(0);

    const ours = await script(
      fake.url,
      () => new SessionTreeSaver({ store: location, model: MODEL }),
      async (old) => {
        await (old as SessionTreeSaver).close();
        return new SessionTreeSaver({ store: location, model: MODEL });
      },
    );
    assert.deepEqual(ours.seen, reference.seen);
    assert.deepEqual(fake.bodies, memoryBodies, "the model got byte-identical requests");
    assert.deepEqual(fake.rejected, [], "the fake API refused nothing");
    const continued = ours.seen.continued ?? [];
    assert.deepEqual(continued.slice(0, 4), ours.seen.tool);
    assert.equal(continued.at(-1), "ai: You said: and on");
    assert.ok(!continued.some((m) => m.includes("hello")), "the rewound turn is off the new branch");

    // The old branch is still there: its last checkpoint reads back whole.
    const saver = ours.saver as SessionTreeSaver;
    const all: string[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: THREAD } })) {
      const messages = (tuple.checkpoint.channel_values.messages ?? []) as BaseMessage[];
      all.push(shape(messages).join(" | "));
    }
    assert.ok(
      all.some((line) => line.endsWith("ai: You said: after the restart")),
      "the first branch's end is listed",
    );
    await saver.close();

    const store = await openStore(location);
    await store.init();
    try {
      const { entries, summary } = await store.loadSession("local", THREAD);
      const messages = entries.filter((e) => e.type === "message");
      // 4 (tool turn) + 2 + 2 + 2 (the rewound question and its answer) + 2: each message once.
      assert.equal(messages.length, 12, "one entry per message, whatever the number of checkpoints");
      const checkpoints = entries.filter(
        (e) => e.type === "custom" && e.customType === "langgraph.checkpoint",
      );
      assert.ok(checkpoints.length > 12);
      const leaf = entries.find((e) => e.id === summary.leafId);
      assert.ok(leaf?.type === "custom", "the leaf is the latest checkpoint's segment");
      const file = join(folder, `${THREAD}.jsonl`);
      writeFileSync(file, await store.exportJsonl("local", THREAD));
      const tree = sessiontree("tree", "--full", file);
      assert.match(tree, /asst → weather/);
      assert.match(tree, /tool:weather sunny in Oslo/);
      assert.match(tree, /asst Tool said: sunny in Oslo/);
      assert.match(tree, /○ \w+ user hello/, "the rewound turn stays, off the path");
      assert.match(tree, /● \w+ asst You said: and on/, "the new branch is the path");
      assert.match(tree, /ext:langgraph\.checkpoint ← leaf/);
      // The context on the path, as pi would send it: the tool turn, the rewound question, "and on".
      const shown = sessiontree("show", file);
      assert.match(shown, /8 messages/);
      assert.match(shown, /→ weather \{"city":"Oslo"\}/);
      assert.match(shown, /── tool result weather \w+\nsunny in Oslo/);
      assert.match(shown, /── assistant gpt-4o-mini \w+\nYou said: and on/);
      assert.doesNotMatch(shown, /hello/);
    } finally {
      await store.close();
    }
  });
});
