import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import { ftsMatch, matchRanges, parseQuery } from "../../src/session/search/query.js";
import { makeSnippet } from "../../src/session/search/snippet.js";
import { camelParts, camelPartsText, fold, tokenize } from "../../src/session/search/tokens.js";

describe("search tokenizer", () => {
  it("cuts words and code identifiers into folded words", () => {
    assert.deepEqual(
      tokenize("Run parseArgs in src/app.ts, read_file Über!").map((t) => t.folded),
      ["run", "parseargs", "in", "src", "app", "ts", "read", "file", "uber"],
    );
    assert.equal(fold("ÉCOLE"), "ecole");
  });

  it("indexes camelCase words by their parts too", () => {
    assert.deepEqual(camelParts("parseArgs"), ["parse", "Args"]);
    assert.deepEqual(camelParts("HTTPServer"), ["HTTP", "Server"]);
    assert.deepEqual(camelParts("plain"), []);
    assert.deepEqual(camelParts("sha256"), []);
    assert.equal(camelPartsText("call parseArgs and readFileSync now"), "parse Args read File Sync");
  });
});

describe("search query", () => {
  it("reads words, phrases, identifiers and prefixes", () => {
    const query = parseQuery('parseArgs "torn tail" src/app.ts pars* ---');
    assert.deepEqual(query.clauses, [
      { words: ["parseargs"], prefix: false },
      { words: ["torn", "tail"], prefix: false },
      { words: ["src", "app", "ts"], prefix: false },
      { words: ["pars"], prefix: true },
    ]);
    assert.equal(ftsMatch(query), '"parseargs" AND body: "torn tail" AND body: "src app ts" AND "pars" *');
  });

  it("quotes every word, so FTS5 operators are words", () => {
    assert.equal(ftsMatch(parseQuery("NEAR AND OR")), '"near" AND "and" AND "or"');
  });

  it("keeps a word that could be a scope token (f and digits) out of the scope column", () => {
    assert.equal(ftsMatch(parseQuery("f12 f* fix")), '{body parts}: "f12" AND {body parts}: "f" * AND "fix"');
  });

  it("refuses a query with no word", () => {
    assert.throws(
      () => parseQuery(' "" -- '),
      (error) => isSessionTreeError(error, "invalid_argument"),
    );
  });

  it("finds words, camelCase parts and phrases in a text", () => {
    const text = "we call parseArgs from src/app.ts; the torn  tail stays";
    const ranges = (q: string) => matchRanges(parseQuery(q), text).map(([a, b]) => text.slice(a, b));
    assert.deepEqual(ranges("args"), ["parseArgs"]);
    assert.deepEqual(ranges("src/app.ts"), ["src/app.ts"]);
    assert.deepEqual(ranges('"torn tail"'), ["torn  tail"]);
    assert.deepEqual(ranges("CALL sta*"), ["call", "stays"]);
  });

  it("makes a one-line snippet around the first match, marks paired", () => {
    const long = `${"lorem ipsum ".repeat(30)}the parseArgs\nfunction ${"dolor sit ".repeat(40)}`;
    const snippet = makeSnippet(parseQuery("parseargs function"), long);
    assert.match(snippet, /^….*«parseArgs» «function» dolor.*…$/);
    assert.ok(!snippet.includes("\n"));
    assert.ok(snippet.replace(/[«»…]/g, "").length <= 200, snippet);
    assert.equal(makeSnippet(parseQuery("x"), "short text"), "short text");
  });
});
