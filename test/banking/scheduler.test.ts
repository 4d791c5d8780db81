import { describe, expect, test } from "bun:test";
import { importBankData } from "../../src/banking/import/ingest.ts";
import { connectSandbox } from "../../src/banking/sandbox/connect.ts";
import { runScheduledSync, startSyncScheduler } from "../../src/banking/scheduler.ts";
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { setup, syncRunRows } from "./helpers.ts";

describe("the sync schedule", () => {
  test("a pass syncs every pullable connection, skips operator-ingest ones and honours the minimum interval", async () => {
    const s = await setup();
    const a = await connectSandbox(s.services, { serviceAccountId: s.accountId, seed: 1 });
    const b = await connectSandbox(s.services, { serviceAccountId: s.accountId, seed: 2 });
    await importBankData(s.services, s.accountId, structuredClone(validFixture));
    await runScheduledSync(s.services);
    expect(
      (await syncRunRows(s.services)).map((r) => [r.connectionId, r.trigger, r.outcome]).sort(),
    ).toEqual(
      [
        [a.id, "schedule", "succeeded"],
        [b.id, "schedule", "succeeded"],
      ].sort(),
    );
    // Within the sandbox's one-minute minimum interval nothing runs.
    s.clock.advance(30_000);
    await runScheduledSync(s.services);
    expect(await syncRunRows(s.services)).toHaveLength(2);
    s.clock.advance(15 * 60_000);
    await runScheduledSync(s.services);
    expect(await syncRunRows(s.services)).toHaveLength(4);
  });

  test("the sync scheduler uses config.syncSchedule and stops cleanly", async () => {
    const s = await setup();
    const worker = startSyncScheduler({
      ...s.services,
      config: { ...s.services.config, syncSchedule: "0 0 1 1 *" },
    });
    expect(worker.name).toBe("sync-scheduler");
    await worker.stop();
  });
});
