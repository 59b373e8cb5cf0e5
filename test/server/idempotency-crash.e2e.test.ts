import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createApiKey, openServiceDb } from "../../src/server/index.js";
import { type ServeChild, startServeChild } from "../support/serve-child.js";
import { BACKENDS, type Backend, type CallResult, call, freshPgDatabase, userMessage } from "./helpers.js";

const _CHILD = join(import.meta.dirname, "cli-child.ts");
const KEYS_PER_ROUND = 60;
const ROUNDS = 3;

function startServe(location: string[]): Promise<ServeChild> {
  return startServeChild(["--rate-limit", "0", "--no-access-log", ...location]);
}

/** One keyed append as a client sends it, again and again: the same key, the same body. */
interface KeyedAppend {
  key: string;
  text: string;
  body: { entries: unknown[] };
}

/** Sends until the server answers 2xx (a connection refused or reset, or a 409 race, is retried). */
async function untilAnswered(url: () => string, token: string, session: string, append: KeyedAppend) {
  // Long: a restart on a loaded machine takes seconds; the deadline only bounds a real failure.
  const deadline = Date.now() + 90_000;
  for (;;) {
    let answer: CallResult | undefined;
    try {
      answer = await call(url(), "POST", `/v1/sessions/${session}/entries`, {
        key: token,
        body: append.body,
        headers: { "idempotency-key": append.key },
      });
    } catch {
      // The server is down (killed, or not restarted yet).
    }
    if (answer && answer.status < 300) return answer;
    if (answer && answer.status !== 409 && answer.status < 500) {
      throw new Error(`${append.key}: ${answer.status} ${answer.text}`);
    }
    if (Date.now() > deadline) throw new Error(`${append.key}: still ${answer?.status} after 90 s`);
    await sleep(50);
  }
}

/**
 * SIGKILL the server during keyed appends, restart it, retry every key: each is applied exactly
 * once (issue 16, defect 4). The appends carry no entry ids (the server draws them), so a write
 * applied twice would store two entries.
 */
for (const backend of BACKENDS) {
  describe(`Idempotency-Key across a crash (${backend})`, () => {
    let location: string[];
    let cleanup: () => Promise<void>;
    let token: string;

    before(async () => {
      if (backend === "postgres") {
        const db = await freshPgDatabase();
        location = ["--database", db.url];
        cleanup = db.drop;
      } else {
        const dir = mkdtempSync(join(tmpdir(), "st-crash-"));
        location = ["--data", dir];
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      }
      const service = await openServiceDb(locationOptions(backend, location));
      token = (await createApiKey(service, "crash", "crash")).key;
      await service.close();
    });
    after(() => cleanup());

    it(`applies every key exactly once over ${ROUNDS} SIGKILLs`, async () => {
      let server = await startServe(location);
      const url = () => server.url;
      const created = await call(url(), "POST", "/v1/sessions", { key: token, body: {} });
      const session = created.json.id as string;
      const all: KeyedAppend[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const appends = Array.from({ length: KEYS_PER_ROUND }, (_, i) => {
            const text = `round ${round} append ${i}`;
            return { key: `crash-${round}-${i}`, text, body: { entries: [userMessage(text)] } };
          });
          all.push(...appends);
          let acknowledged = 0;
          const sending = appends.map(async (append, i) => {
            await sleep(i * 2);
            const answer = await untilAnswered(url, token, session, append);
            acknowledged++;
            return answer;
          });
          // Kill it once some appends went through and others are in flight.
          while (acknowledged < KEYS_PER_ROUND / 4) await sleep(2);
          await server.kill();
          server = await startServe(location);
          const answers = await Promise.all(sending);
          assert.ok(answers.every((answer) => answer.status === 200));
        }
        // Every key again, after the dust settled: each answers as it first did.
        for (const append of all) await untilAnswered(url, token, session, append);

        const texts: string[] = [];
        for (let after = 0; ; ) {
          const page = await call(url(), "GET", `/v1/sessions/${session}/entries?after=${after}&limit=1000`, {
            key: token,
          });
          for (const entry of page.json.entries) texts.push(entry.message.content);
          if (page.json.nextAfter === null) break;
          after = page.json.nextAfter;
        }
        const counts = new Map<string, number>();
        for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
        const wrong = all
          .filter((append) => counts.get(append.text) !== 1)
          .map((a) => `${a.key}: ${counts.get(a.text) ?? 0}`);
        assert.deepEqual(wrong, [], "every key applied exactly once");
        assert.equal(texts.length, all.length);
      } finally {
        await server.kill();
      }
    });
  });
}

function locationOptions(backend: Backend, location: string[]) {
  return backend === "postgres" ? { database: location[1] } : { data: location[1] };
}
