import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { startFakeOpenAiApi } from "./fixtures/fake-openai-api.js";

/** The fake must refuse what the real Responses API refuses, or the adapter tests prove nothing. */
describe("the fake Responses API", async () => {
  const fake = await startFakeOpenAiApi();
  after(() => fake.close());
  const post = async (input: unknown) => {
    const res = await fetch(`${fake.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4.1", input }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  test("a valid turn with a tool call and its output is answered", async () => {
    const call = await post([{ role: "user", content: 'call weather {"city":"Oslo"}' }]);
    assert.equal(call.status, 200);
    const [item] = call.body.output as Array<Record<string, unknown>>;
    assert.equal(item?.type, "function_call");
    const done = await post([
      { role: "user", content: "go" },
      { type: "item_reference", id: item?.id },
      { type: "function_call_output", call_id: item?.call_id, output: "sunny" },
    ]);
    assert.equal(done.status, 200);
  });

  test("an output without its call, a call without its output, an unknown id or role are 400s", async () => {
    const cases = [
      [{ type: "function_call_output", call_id: "call_x", output: "o" }],
      [{ type: "function_call", call_id: "call_y", name: "w", arguments: "{}" }],
      [
        {
          type: "message",
          id: "msg_never",
          role: "assistant",
          content: [{ type: "output_text", text: "x" }],
        },
      ],
      [{ role: "tool", content: "x" }],
      [{ role: "assistant", content: [{ type: "input_text", text: "x" }] }],
    ];
    for (const input of cases) assert.equal((await post(input)).status, 400, JSON.stringify(input));
    assert.equal(fake.rejected.length, cases.length);
  });
});
