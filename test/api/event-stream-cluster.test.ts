// The cap on an account's open /v1/events/stream connections holds across serving processes
// (src/api/events/stream-slots.ts), on this run's engine: two servers on two stores of one
// database, each a registered process, share the account's places; a place is freed when its stream
// ends, and the places of a process that is gone are freed by the sweep.
import { afterAll, describe, expect, test } from "bun:test";
import { startProcessRegistry } from "../../src/cluster/processes.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { errorOf, startApiHarness } from "../support/api.ts";
import { testPoolOptions } from "../support/engine.ts";
import { startTestServer } from "../support/server.ts";
import { testMasterKeyHex } from "../support/services.ts";
import { waitUntil } from "../support/wait.ts";

const maxPerAccount = 3;
const first = await startApiHarness();
const second = await openServices(first.services.config, {
  clock: first.clock,
  log: silentLogger,
  env: { SVC_MASTER_KEY: testMasterKeyHex },
  postgres: testPoolOptions,
});
const registry = { clock: first.clock, log: silentLogger, schedule: false };
const processA = await startProcessRegistry({ ...registry, database: first.services.database });
const processB = await startProcessRegistry({ ...registry, database: second.database });
const streamOptions = { heartbeatMs: 60_000, pollMs: 60_000, maxPerAccount };
const serverA = startTestServer(first.services, {
  eventStreams: streamOptions,
  processId: processA.id,
});
const serverB = startTestServer(second, { eventStreams: streamOptions, processId: processB.id });
afterAll(async () => {
  await serverA.stop();
  await serverB.stop();
  await processB.stop();
  await processA.stop();
  await second.database.close();
  await first.stop();
});

const alice = await first.addTenant("alice@example.com");
const bob = await first.addTenant("bob@example.com");

async function open(baseUrl: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/v1/events/stream`, {
    headers: { Authorization: `Bearer ${key}` },
    signal: controller.signal,
  });
  return { response, close: () => controller.abort() };
}

const openPlaces = async () =>
  (await first.services.db.select().from(first.services.db.t.eventStreams)).length;

describe("event streams per account across processes", () => {
  test("the account's places are shared by every process: 2 here and 1 there leave none; another account is unaffected; an ended stream frees its place", async () => {
    const held = [
      await open(serverA.baseUrl, alice.key),
      await open(serverA.baseUrl, alice.key),
      await open(serverB.baseUrl, alice.key),
    ];
    expect(held.map((s) => s.response.status)).toEqual([200, 200, 200]);
    for (const baseUrl of [serverA.baseUrl, serverB.baseUrl]) {
      const refused = await open(baseUrl, alice.key);
      expect(refused.response.status).toBe(429);
      expect((await errorOf(refused.response)).message).toContain(
        `At most ${maxPerAccount} event streams`,
      );
    }
    const bobs = await open(serverB.baseUrl, bob.key);
    expect(bobs.response.status).toBe(200);
    bobs.close();

    (held[2] as { close(): void }).close();
    await waitUntil(async () => (await openPlaces()) === 2, "the ended stream's place freed");
    const again = await open(serverB.baseUrl, alice.key);
    expect(again.response.status).toBe(200);
    for (const stream of [...held, again]) stream.close();
    await waitUntil(async () => (await openPlaces()) === 0, "every place freed");
  });
});
