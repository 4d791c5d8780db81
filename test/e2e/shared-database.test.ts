// The server survives its own CLI (and any SQLite reader) opening its database: no handle,
// mapping or read of SQLite's files outside SQLite. Closing any handle of a file drops every
// POSIX lock the process holds on it, SQLite's included; a process that then opens the database
// believes it is alone, rebuilds the -shm file, and a mapping of it faults (SIGBUS).
// Checked through the compiled binary while it serves reads and delivers a backlog.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { startBinary } from "../support/binary.ts";
import {
  binarySvc,
  deliveringBinary,
  openWriter,
  verifiedEndpointThroughCli,
} from "../support/cli-setup.ts";
import { testEngine } from "../support/engine.ts";
import { startReceiver } from "../support/receiver.ts";
import { holdsShmLock } from "../support/sqlite-locks.ts";

const backlogEvents = 400;
const readerOpens = 400;

function importFile(dir: string, round: number): string {
  const file = join(dir, `import-${round}.json`);
  const transactions = Array.from({ length: 50 }, (_, i) => ({
    id: `t-${round}-${i}`,
    status: "booked",
    amount: `-${i + 1}.00`,
    currency: "EUR",
    booking_date: "2026-01-14",
    description: `Payment ${i}`,
  }));
  writeFileSync(
    file,
    JSON.stringify({
      connections: [
        {
          id: "shared-db-connection",
          institution: "Acme Bank",
          status: "linked",
          accounts: [
            {
              id: `account-${round}`,
              name: "Checking",
              type: "current",
              currency: "EUR",
              balance: { current: `${100 + round}.00`, as_of: "2026-01-15T08:00:00Z" },
              transactions,
            },
          ],
        },
      ],
    }),
  );
  return file;
}

// SQLite only: the -shm file and its locks are SQLite's (PostgreSQL has its own server).
describe.if(testEngine === "sqlite")(
  "the server next to other processes using its database",
  () => {
    test("stays up and keeps SQLite's shared lock on the -shm file while readers, svc deliveries list, svc import and svc sync open the database hundreds of times", async () => {
      const { binary, cert, cwd, env } = await deliveringBinary("svc-shared-db", {
        SVC_API_RATE_LIMIT_PER_MINUTE: "0",
        SVC_LOG_LEVEL: "warn",
      });
      const dbPath = join(cwd, "data", "svc.db");
      // A slow-ish receiver, so the backlog is still being delivered while the others work.
      const receiver = startReceiver(cert, async () => {
        await Bun.sleep(5);
        return new Response(null, { status: 200 });
      });
      const svc = binarySvc(binary, cwd, env);
      try {
        const { accountId } = await verifiedEndpointThroughCli(
          svc,
          receiver,
          "shared@example.com",
          receiver.url("/shared"),
        );
        const apiKey = (await svc("keys", "create", "--account", accountId)).json<{ key: string }>()
          .key;
        expect((await svc("sandbox", "connect", "--account", accountId)).code).toBe(0);

        const server = await startBinary(binary, { cwd, env });
        const pid = server.process.pid;
        let lockMissing = 0;
        let lockSamples = 0;
        const sampleLock = () => {
          lockSamples++;
          if (!holdsShmLock(pid, dbPath)) lockMissing++;
        };
        sampleLock();

        // A backlog written by another process (as `svc sync` would), delivered by the server.
        const writer = await openWriter(cwd);
        await writer.db.write(async (tx) => {
          for (let i = 0; i < backlogEvents; i++) {
            await recordAccountEvent(tx, writer.clock, {
              serviceAccountId: accountId,
              type: "account.transactions.available",
              data: {
                account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
                fetched_at: new Date().toISOString(),
                new_count: i + 1,
              },
            });
          }
        });
        await writer.database.close();

        let stop = false;
        const serverUp = () => server.process.exitCode === null;
        // Plain SQLite readers in this process: open, read, close, one every 20 ms.
        const readers = (async () => {
          for (let i = 0; i < readerOpens && serverUp(); i++) {
            const reader = new Database(dbPath, { readonly: true });
            reader.query("SELECT count(*) AS n FROM deliveries").get();
            reader.query("SELECT count(*) AS n FROM transactions").get();
            reader.close();
            sampleLock();
            await Bun.sleep(20);
          }
        })();
        let reads = 0;
        const apiReads = (async () => {
          while (!stop && serverUp()) {
            const answer = await fetch(`${server.baseUrl}/v1/accounts`, {
              headers: { Authorization: `Bearer ${apiKey}` },
            }).catch(() => undefined);
            if (answer?.ok) reads++;
            await answer?.arrayBuffer();
            await Bun.sleep(5);
          }
        })();
        // The documented CLI beside the server, each a process of its own.
        const cliCodes: number[] = [];
        for (let round = 0; round < 4 && serverUp(); round++) {
          cliCodes.push((await svc("deliveries", "list", "--account", accountId)).code);
          cliCodes.push((await svc("import", "--account", accountId, importFile(cwd, round))).code);
          cliCodes.push((await svc("sync")).code);
          sampleLock();
        }
        await readers;
        stop = true;
        await apiReads;
        sampleLock();

        expect(server.process.exitCode).toBeNull();
        expect(server.stderr().includes("Bus error")).toBe(false);
        expect(cliCodes.every((code) => code === 0)).toBe(true);
        expect(reads).toBeGreaterThan(0);
        expect(lockSamples).toBeGreaterThan(readerOpens);
        expect(lockMissing).toBe(0);
        expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
        expect(await server.stop("SIGTERM")).toBe(0);
      } finally {
        await receiver.stop();
      }
    }, 120_000);
  },
);
