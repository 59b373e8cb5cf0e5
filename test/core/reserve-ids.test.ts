import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionTree } from "../../src/core/tree.js";
import { messageMaker } from "../support/messages.js";

const { user } = messageMaker();

test("a partial tree does not hand out ids that its reserved set says are taken", () => {
  const tree = new SessionTree();
  const asked: string[] = [];
  tree.reserveIds((id) => {
    asked.push(id);
    return asked.length <= 3; // the first three candidates are taken elsewhere
  });
  const entry = tree.append({ type: "message", message: user("hi") });
  assert.equal(asked.length, 4);
  assert.equal(entry.id, asked[3]);
  assert.equal(entry.id.length, 8);
});

test("when every short id is taken, a full UUID is used, as pi does", () => {
  const tree = new SessionTree();
  tree.reserveIds(() => true);
  const entry = tree.append({ type: "message", message: user("hi") });
  assert.match(entry.id, /^[0-9a-f-]{36}$/);
});
