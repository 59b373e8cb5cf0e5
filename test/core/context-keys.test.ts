import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { projectContext } from "../../src/core/context.js";
import type { SessionEntry } from "../../src/core/entry.js";

describe("extensionState keys", () => {
  test("a customType named like an Object.prototype member is a key like any other", () => {
    const path = ["__proto__", "constructor", "toString", "plain"].map(
      (customType, i) =>
        ({
          type: "custom",
          id: `c${i}`,
          parentId: i === 0 ? null : `c${i - 1}`,
          timestamp: "2026-01-01T00:00:00.000Z",
          customType,
          data: { n: i },
        }) as SessionEntry,
    );
    const { extensionState } = projectContext(path);
    assert.deepEqual(Object.keys(extensionState), ["__proto__", "constructor", "toString", "plain"]);
    assert.deepEqual(Object.getOwnPropertyDescriptor(extensionState, "__proto__")?.value, { n: 0 });
    assert.equal(Object.getPrototypeOf(extensionState), Object.prototype, "the object itself is untouched");
  });
});
