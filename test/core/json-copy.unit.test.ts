import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { copyJson } from "../../src/core/json-copy.js";

describe("copyJson", () => {
  test("copies every level, sharing no object or array with the original", () => {
    const original = JSON.parse(
      '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"hi"}],"usage":{"input":1,"cost":{"total":0.5}}},"n":[1,[2,null,true]]}',
    );
    const copy = copyJson(original);
    assert.deepEqual(copy, original);
    assert.equal(JSON.stringify(copy), JSON.stringify(original), "same keys in the same order");
    assert.notEqual(copy.message, original.message);
    assert.notEqual(copy.message.content, original.message.content);
    assert.notEqual(copy.message.content[0], original.message.content[0]);
    assert.notEqual(copy.n[1], original.n[1]);
    copy.message.content[0].text = "changed";
    copy.n[1].push(3);
    assert.equal(original.message.content[0].text, "hi");
    assert.deepEqual(original.n, [1, [2, null, true]]);
  });

  test("keeps a __proto__ key as data, as JSON.parse does, and the copy's prototype plain", () => {
    const original = JSON.parse('{"a":1,"__proto__":{"polluted":true}}');
    const copy = copyJson(original);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.keys(copy), ["a", "__proto__"]);
    assert.equal(JSON.stringify(copy), JSON.stringify(original));
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  test("scalars and null come back as they are", () => {
    for (const value of ["s", 0, -1.5, true, false, null]) assert.equal(copyJson(value), value);
  });
});
