// Sync cost of the sandbox bank as a connection ages: the sandbox computes balances from its
// whole history, and live activity adds one transaction per five minutes, so a 15-minute sync
// after months of syncing must stay cheap. Prints each case's median time and its ratio to a
// baseline measured in the same run: a no-change sync (lease, run row, one transaction, an
// empty provider), i.e. the fixed cost every sync pays.
//   bun run scripts/bench/sync.ts

import { connectSandbox } from "../../src/banking/sandbox/connect.ts";
import { createSandboxProvider } from "../../src/banking/sandbox/provider.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { tables } from "../../test/support/tables.ts";

const { serviceAccounts } = tables;

import { newId } from "../../src/core/ids.ts";
import { createFakeClock } from "../../test/support/fake-clock.ts";
import { createTestServices } from "../../test/support/services.ts";

const rounds = 15;
const minute = 60_000;
const day = 86_400_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function connected() {
  const clock = createFakeClock("2026-01-15T09:00:00.000Z");
  const services = await createTestServices({ clock });
  const accountId = newId();
  await services.db.write((tx) =>
    tx
      .insert(serviceAccounts)
      .values({ id: accountId, name: "bench", createdAt: clock.now(), updatedAt: clock.now() }),
  );
  const connection = await connectSandbox(services, { serviceAccountId: accountId, seed: 1 });
  const sync = async () => {
    const started = performance.now();
    const result = await syncConnection(services, connection.id, { trigger: "cli", force: true });
    if (result.outcome !== "succeeded") throw new Error(`sync ${result.outcome}`);
    return performance.now() - started;
  };
  return { clock, services, sync };
}

/** The time of a sync `step` after the previous one, `rounds` times. */
async function measure(
  bank: Awaited<ReturnType<typeof connected>>,
  stepMs: number,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    bank.clock.advance(stepMs);
    times.push(await bank.sync());
  }
  return median(times);
}

const bank = await connected();
const first = await bank.sync();
const baseline = await measure(bank, 0);
const results: [string, number][] = [["first sync (90 days of history)", first]];
results.push(["15-minute sync, day 1", await measure(bank, 15 * minute)]);
for (const ageDays of [30, 180]) {
  // Age the connection: a daily sync brings it up to date, then quarter-hour syncs are timed.
  while (bank.clock.now().getTime() < Date.parse("2026-01-15T09:00:00.000Z") + ageDays * day) {
    bank.clock.advance(day);
    await bank.sync();
  }
  results.push([`15-minute sync, day ${ageDays}`, await measure(bank, 15 * minute)]);
}
// The provider alone, to separate reading the bank from storing what it said.
const provider = createSandboxProvider(bank.clock);
const [stored] = await bank.services.db
  .select({ state: bank.services.db.t.connections.providerState })
  .from(bank.services.db.t.connections);
const state = JSON.parse(stored?.state ?? "{}");
const readTimes: number[] = [];
for (let i = 0; i < rounds; i++) {
  const started = performance.now();
  const connection = { id: "", externalId: "", institution: "", status: "linked" as const, state };
  await provider.fetchBalance(connection, "cur");
  readTimes.push(performance.now() - started);
}
results.push(["sandbox balance read alone, day 180", median(readTimes)]);

console.log(`baseline: no-change sync ${baseline.toFixed(2)} ms (median of ${rounds})`);
for (const [name, ms] of results) {
  console.log(
    `${name.padEnd(40)} ${ms.toFixed(2).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}x baseline`,
  );
}
const [, day30] = results.find(([name]) => name.endsWith("day 30")) ?? [];
const [, day180] = results.find(([name]) => name.endsWith("day 180")) ?? [];
if (day30 && day180)
  console.log(
    `ageing: a day-180 sync costs ${(day180 / day30).toFixed(2)}x a day-30 sync (flat = 1)`,
  );
await bank.services.database.close();
