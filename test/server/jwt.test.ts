import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { startTestServer, type TestServer } from "./helpers.js";

const SECRET = "a-test-secret-of-reasonable-length-0123456789";
const secretKey = new TextEncoder().encode(SECRET);

function token(claims: Record<string, unknown>, expires = "5m") {
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime(expires);
}

describe("JWT authentication", () => {
  let t: TestServer;
  let es: TestServer;
  let esPrivate: CryptoKey;

  before(async () => {
    t = await startTestServer("sqlite", { jwt: { secret: SECRET, issuer: "https://issuer.test" } });
    const pair = await generateKeyPair("ES256");
    esPrivate = pair.privateKey;
    es = await startTestServer("sqlite", { jwt: { publicKey: await exportSPKI(pair.publicKey) } });
  });
  after(async () => {
    await t.close();
    await es.close();
  });

  it("takes the user from `sub` of a valid HS256 token", async () => {
    const dave = await token({ sub: "dave" }).setIssuer("https://issuer.test").sign(secretKey);
    const created = await t.call("POST", "/v1/sessions", { key: dave, body: { name: "mine" } });
    assert.equal(created.status, 201);
    const eve = await token({ sub: "eve" }).setIssuer("https://issuer.test").sign(secretKey);
    const foreign = await t.call("GET", `/v1/sessions/${created.json.id}`, { key: eve });
    assert.equal(foreign.status, 404);
    assert.equal((await t.call("GET", `/v1/sessions/${created.json.id}`, { key: dave })).json.name, "mine");
  });

  it("refuses expired, foreign-signed, wrong-issuer, subject-less and unsigned tokens", async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      await token({ sub: "dave" })
        .setIssuer("https://issuer.test")
        .setExpirationTime(now - 60)
        .sign(secretKey),
      await token({ sub: "dave" })
        .setIssuer("https://issuer.test")
        .sign(new TextEncoder().encode("another secret, same length....")),
      await token({ sub: "dave" }).setIssuer("https://elsewhere.test").sign(secretKey),
      await token({}).setIssuer("https://issuer.test").sign(secretKey),
      `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"dave","iss":"https://issuer.test"}').toString("base64url")}.`,
    ];
    for (const credential of bad) {
      const r = await t.call("GET", "/v1/sessions", { key: credential });
      assert.equal(r.status, 401, credential);
      assert.equal(r.json.code, "unauthorized");
    }
  });

  it("refuses a token without `exp` unless the server allows it", async () => {
    const endless = await new SignJWT({ sub: "dave" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("https://issuer.test")
      .sign(secretKey);
    const refused = await t.call("GET", "/v1/sessions", { key: endless });
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, "unauthorized");
    const lenient = await startTestServer("sqlite", { jwt: { secret: SECRET, allowNoExpiry: true } });
    try {
      const open = await new SignJWT({ sub: "dave" }).setProtectedHeader({ alg: "HS256" }).sign(secretKey);
      assert.equal((await lenient.call("GET", "/v1/sessions", { key: open })).status, 200);
    } finally {
      await lenient.close();
    }
  });

  it("verifies tokens against a configured public key", async () => {
    const good = await new SignJWT({ sub: "frank" })
      .setProtectedHeader({ alg: "ES256" })
      .setExpirationTime("5m")
      .sign(esPrivate);
    assert.equal((await es.call("GET", "/v1/sessions", { key: good })).status, 200);
    const hs = await token({ sub: "frank" }).sign(secretKey);
    assert.equal((await es.call("GET", "/v1/sessions", { key: hs })).status, 401, "no algorithm confusion");
  });

  it("keeps API keys working next to JWTs", async () => {
    const key = await t.key("gina");
    assert.equal((await t.call("GET", "/v1/sessions", { key })).status, 200);
  });
});
