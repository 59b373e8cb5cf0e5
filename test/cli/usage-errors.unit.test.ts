import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runScenario, tempWorkspace } from "./helpers.js";

// A mistake in the command line exits 2 and says what was wrong. Two did not: `archive` with no
// mode (or two) exited 2 printing nothing, and `view --port ''` was read as port 0 (any port).

const ws = tempWorkspace();
after(ws.cleanup);

test("archive without exactly one mode exits 2 and says which modes there are", () => {
  const results = runScenario(ws.dir, [
    { args: ["archive"] },
    { args: ["archive", "--restore", "--collect"] },
  ]);
  for (const result of results) {
    assert.equal(result.code, 2);
    assert.match(result.stderr, /give exactly one of --older-than <duration>, --restore, --collect/);
  }
});

test("view refuses a port that is not written as one, before it starts anything", () => {
  for (const port of ["", " ", "0x10", "1e3", "65536", "-1", "80a"]) {
    const [result] = runScenario(ws.dir, [{ args: ["view", "--port", port, "--no-open"] }]);
    assert.equal(result?.code, 2, `--port ${JSON.stringify(port)}`);
    assert.match(result?.stderr ?? "", /expected an integer from 0 to 65535/);
    assert.doesNotMatch(result?.stdout ?? "", /viewer:/);
  }
});
