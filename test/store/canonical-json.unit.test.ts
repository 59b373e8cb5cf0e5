import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson, sameContent } from "../../src/core/canonical-json.js";

/** The reference: JSON.stringify over a copy with sorted keys (recursive: for small values only). */
function reference(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== "object" || v instanceof Date) return v;
    if (v instanceof Number || v instanceof String || v instanceof Boolean) return v;
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key]);
    return out;
  };
  return JSON.stringify(sort(value));
}

function deepObject(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("canonicalJson", () => {
  it("writes what JSON.stringify writes for the same value with sorted keys", () => {
    const samples: unknown[] = [
      null,
      true,
      0,
      -0,
      1.5e300,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      'é\u0000\n"',
      [],
      {},
      [1, undefined, () => 1, Symbol("s"), null],
      { b: 1, a: [{ d: undefined, c: "x" }], e: { g: null, f: [] }, h: () => 1 },
      { when: new Date(0), boxed: [new Number(2), new String("s"), new Boolean(false)] },
    ];
    for (const sample of samples) assert.equal(canonicalJson(sample), reference(sample));
    assert.equal(canonicalJson(undefined), undefined);
    // What toJSON returns is sorted too.
    assert.equal(canonicalJson({ nested: { toJSON: () => ({ z: 1, y: 2 }) } }), '{"nested":{"y":2,"z":1}}');
  });

  it("ignores key order", () => {
    assert.ok(sameContent({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }));
  });

  it("survives a value 100,000 levels deep (the recursive version overflowed the stack)", () => {
    const text = canonicalJson(deepObject(100_000));
    assert.ok(text.startsWith('{"a":{"a":'));
    assert.equal(text.length, 100_000 * 6 + 1);
    assert.ok(sameContent(deepObject(100_000), deepObject(100_000)));
    assert.ok(!sameContent(deepObject(100_000), deepObject(99_999)));
  });

  it('keeps a "__proto__" key as a key: entries differing only under it are not the same', () => {
    const a = JSON.parse('{"id":"x","__proto__":{"secret":1}}');
    const b = JSON.parse('{"id":"x","__proto__":{"secret":2}}');
    assert.ok(!sameContent(a, b));
    assert.equal(canonicalJson(a), '{"__proto__":{"secret":1},"id":"x"}');
  });

  it("refuses circular structures and BigInts, as JSON.stringify does", () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    assert.throws(() => canonicalJson(loop), TypeError);
    assert.throws(() => canonicalJson({ n: 1n }), TypeError);
    const shared = { x: 1 };
    assert.equal(canonicalJson({ a: shared, b: shared }), '{"a":{"x":1},"b":{"x":1}}');
  });
});
