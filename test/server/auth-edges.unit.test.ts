import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SignJWT } from "jose";
import { startTestServer, type TestServer } from "./helpers.js";

const SECRET = "an-auth-edges-secret-of-reasonable-length-0123";
const secretKey = new TextEncoder().encode(SECRET);

// JWT `exp` past year 9999: `toISOString()` gives an extended year ("+010000-…"), and expiries are
// compared as strings, where "+" sorts before every digit: such a credential counts as expired.
describe("auth edges: credentials expiring after year 9999", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer("sqlite", { jwt: { secret: SECRET } });
  });
  after(async () => {
    await t.close();
  });

  it("a JWT valid until year 10000 makes a key that works (not 403 credential_expiring)", async () => {
    const jwt = await new SignJWT({ sub: "yara" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(253402300800) // 10000-01-01T00:00:00Z
      .sign(secretKey);
    const auth = { authorization: `Bearer ${jwt}` };
    assert.equal((await t.call("GET", "/v1/sessions", { key: null, headers: auth })).status, 200);
    const made = await t.call("POST", "/v1/keys", { key: null, headers: auth, body: { name: "far" } });
    assert.equal(made.status, 201, made.text);
    const listed = await t.call("GET", "/v1/sessions", { key: made.json.key });
    assert.equal(listed.status, 200, listed.text);
  });
});
