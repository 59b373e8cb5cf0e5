import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { queryTerms } from "../../src/core/search-query.js";
import { parseQuery } from "../../src/session/search/query.js";
import { parseSearch } from "../../src/store/search/search-query.js";

const texts = (query: string) => queryTerms(query).map((term) => term.text);

describe("search query syntax (one for every index)", () => {
  it("splits words on white space and keeps a quoted phrase whole", () => {
    assert.deepEqual(queryTerms('parseArgs  "torn  tail"\tsrc/app.ts pars*'), [
      { text: "parseArgs", quoted: false, prefix: false },
      { text: "torn  tail", quoted: true, prefix: false },
      { text: "src/app.ts", quoted: false, prefix: false },
      { text: "pars*", quoted: false, prefix: true },
    ]);
  });

  it("runs a quote left open to the end of the query", () => {
    assert.deepEqual(queryTerms('deploy "rollback snapshot'), [
      { text: "deploy", quoted: false, prefix: false },
      { text: "rollback snapshot", quoted: true, prefix: false },
    ]);
  });

  it("leaves out empty phrases and never keeps a quote in a term", () => {
    assert.deepEqual(texts(' "" " " -- '), ["--"]);
    assert.deepEqual(texts('a"b c" "d"e'), ["a", "b c", "d", "e"]);
    assert.ok(queryTerms('x"y"z "w').every((term) => !term.text.includes('"')));
  });

  it("a quoted word ending in * is no prefix", () => {
    assert.deepEqual(queryTerms('"pars*"'), [{ text: "pars*", quoted: true, prefix: false }]);
  });

  it("is what both the local index and the stores read", () => {
    const query = 'readBranch "Torn Tail" pars*';
    assert.deepEqual(parseQuery(query).clauses, [
      { words: ["readbranch"], prefix: false },
      { words: ["torn", "tail"], prefix: false },
      { words: ["pars"], prefix: true },
    ]);
    const parsed = parseSearch("owner", query);
    assert.deepEqual(parsed.terms, ["readbranch", "torn tail", "pars*"]);
    assert.deepEqual(parsed.phrases, [[["readbranch"], ["read", "branch"]], [["torn", "tail"]], [["pars"]]]);
  });
});
