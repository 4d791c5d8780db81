// Replays a corpus shape (test/fixtures/providers) through the one sync path: a connection of the
// real provider, whose client answers each sync with the shape's next read. In process (the
// binary test serves the same shapes over HTTPS).
import { asc, eq } from "drizzle-orm";
import type { BankProvider } from "../../src/banking/provider.ts";
import type { EnableBankingClient } from "../../src/banking/providers/enable-banking/client.ts";
import { createEnableBankingProvider } from "../../src/banking/providers/enable-banking/provider.ts";
import { providerSecretBox } from "../../src/banking/providers/secrets.ts";
import type { SimplefinClient } from "../../src/banking/providers/simplefin/client.ts";
import { createSimplefinProvider } from "../../src/banking/providers/simplefin/provider.ts";
import { parseAccountSet } from "../../src/banking/providers/simplefin/transform.ts";
import { type SyncResult, syncConnection } from "../../src/banking/sync.ts";
import { newId } from "../../src/core/ids.ts";
import {
  defaultEbAccount,
  defaultEbBalances,
  type EnableBankingShape,
  type SimplefinShape,
} from "../support/provider-fixtures.ts";
import { type Setup, setup } from "./helpers.ts";

export interface Replay extends Setup {
  connectionId: string;
  /** Runs the next sync (one day after the previous one), answered by the shape's next read. */
  next(): Promise<SyncResult>;
  connection(): Promise<{ status: string; notice: string | null; error: string | null }>;
  /** Every stored transaction, oldest first. */
  transactions(): Promise<
    {
      id: string;
      status: string;
      amount: string;
      description: string;
      bookingDate: string;
      bookedTransactionId: string | null;
      pendingTransactionId: string | null;
      removedAt: Date | null;
    }[]
  >;
}

function ebClient(shape: EnableBankingShape, read: () => number): EnableBankingClient {
  const unused = () => Promise.reject(new Error("not part of a sync"));
  return {
    listAspsps: unused,
    startAuth: unused,
    createSession: unused,
    deleteSession: unused,
    async getSession() {
      return { status: "linked", validUntil: new Date("2026-04-15T00:00:00Z") };
    },
    async balances() {
      return shape.balances ?? defaultEbBalances;
    },
    async transactions() {
      return (shape.reads[read()] ?? []) as never;
    },
  };
}

function simplefinClient(shape: SimplefinShape, read: () => number): SimplefinClient {
  return {
    claim: () => Promise.reject(new Error("not part of a sync")),
    async accounts() {
      return parseAccountSet(shape.reads[read()] ?? { accounts: [] });
    },
  };
}

export async function replay(shape: EnableBankingShape | SimplefinShape): Promise<Replay> {
  const s = await setup();
  const box = providerSecretBox(s.services.masterKey.bytes);
  let reads = -1;
  const read = () => Math.min(reads, shape.reads.length - 1);
  const now = () => s.clock.now();
  const provider: BankProvider =
    shape.provider === "enable_banking"
      ? createEnableBankingProvider({ client: ebClient(shape, read), box, now })
      : createSimplefinProvider({ client: simplefinClient(shape, read), box, now });
  const connectionId = newId();
  const at = s.clock.now();
  await s.services.db.write((tx) =>
    tx.insert(tx.t.connections).values({
      id: connectionId,
      serviceAccountId: s.accountId,
      provider: shape.provider,
      externalId: `${shape.provider}-${connectionId}`,
      institution: "Replayed Bank",
      status: "linked",
      providerState: JSON.stringify(
        shape.provider === "enable_banking"
          ? {
              bank: "Stub Bank",
              country: "FI",
              accounts: shape.session_accounts ?? [defaultEbAccount],
            }
          : {},
      ),
      providerSecret: box.seal(
        shape.provider === "enable_banking" ? "session-1" : "https://u:p@bridge.example/simplefin",
      ),
      createdAt: at,
      updatedAt: at,
    }),
  );
  const { connections, transactions } = s.services.db.t;
  return {
    ...s,
    connectionId,
    async next() {
      if (reads >= 0) s.clock.advance(24 * 3_600_000);
      reads++;
      // The request budget's wait is not what these tests are about.
      await s.services.db.write((tx) =>
        tx.update(connections).set({ nextPullAt: null }).where(eq(connections.id, connectionId)),
      );
      return syncConnection(s.services, connectionId, {
        trigger: "cli",
        force: true,
        providers: { [shape.provider]: provider },
      });
    },
    async connection() {
      const [row] = await s.services.db
        .select()
        .from(connections)
        .where(eq(connections.id, connectionId));
      if (!row) throw new Error("connection gone");
      return row;
    },
    async transactions() {
      return s.services.db
        .select()
        .from(transactions)
        .orderBy(asc(transactions.createdAt), asc(transactions.id));
    },
  };
}
