// *Simulate activity* on a sandbox connection (like `stripe trigger`): the owner makes the bank
// do something now, and a sync brings it in through the same path every sync uses, so each
// account event type can be produced on demand (spec 6): new transactions, a pending card
// payment booking, a balance change without a transaction, a connection status change.
import { and, eq } from "drizzle-orm";
import { ApiError } from "../../core/errors.ts";
import { isUuid } from "../../core/ids.ts";
import type { ConnectionStatus } from "../../db/schema.ts";
import { first } from "../../db/store.ts";
import { enforceWindow } from "../../limits/sliding-window.ts";
import { getConnection } from "../connections.ts";
import type { ConnectionRow } from "../status.ts";
import { type SyncDeps, type SyncResult, type SyncTrigger, syncConnection } from "../sync.ts";
import { activityBetween, maxBookingLagMs } from "./activity.ts";
import { everydayMerchants, friends } from "./catalog.ts";
import { setSandboxStatus } from "./connect.ts";
import { randomStream } from "./prng.ts";
import {
  type SandboxAccountCode,
  type SandboxItem,
  type SandboxState,
  type SimulatedActivity,
  sandboxProfile,
} from "./profile.ts";
import { parseSandboxState } from "./provider.ts";

export const simulationKinds = ["transactions", "booking", "balance", "status"] as const;
export type SimulationKind = (typeof simulationKinds)[number];

/** Per account, so a loop cannot grow a connection's state without bound (sliding window). */
export const simulationLimit = { limit: 60, windowMs: 60 * 60_000 } as const;
/** Simulated transactions older than this leave the state; their amounts stay in the balance. */
const keepItemsMs = 30 * 86_400_000;
/** Stream id of simulated activity (profile.ts `streams` uses 1-4). */
const simulationStream = 5;

export interface SimulationInput {
  connectionId: string;
  kind: SimulationKind;
  /** A bank account of the connection (our id); default its current account. */
  accountId?: string;
  /** For `status`: the status to move to; default linked <-> awaiting_auth. */
  status?: ConnectionStatus;
  trigger: Extract<SyncTrigger, "cli" | "portal">;
}

export interface SimulationResult {
  connectionId: string;
  kind: SimulationKind;
  /** What happened at the bank, in words. */
  summary: string;
  /** The event types this raises when the sync (or status move) succeeds. */
  expectedEvents: string[];
  /** The sync that brought it in (null for a status change). */
  sync: SyncResult | null;
}

function sandboxConnection(connection: ConnectionRow): SandboxState {
  if (connection.provider !== "sandbox") {
    throw new ApiError(
      "invalid_state",
      `Connection ${connection.id} is not a sandbox connection: only the sandbox bank can simulate activity.`,
    );
  }
  return parseSandboxState(JSON.parse(connection.providerState));
}

async function accountCode(
  deps: SyncDeps,
  connection: ConnectionRow,
  state: SandboxState,
  accountId: string | undefined,
): Promise<SandboxAccountCode> {
  const codes = sandboxProfile(state).accounts.map((account) => account.code);
  if (accountId === undefined) return "cur";
  const { bankAccounts } = deps.db.t;
  const row =
    isUuid(accountId) &&
    (await first(
      deps.db
        .select({ externalId: bankAccounts.externalId })
        .from(bankAccounts)
        .where(and(eq(bankAccounts.id, accountId), eq(bankAccounts.connectionId, connection.id))),
    ));
  const code = (row ? row.externalId : undefined) as SandboxAccountCode | undefined;
  if (!code || !codes.includes(code)) {
    throw new ApiError("not_found", `Connection ${connection.id} has no account ${accountId}.`);
  }
  return code;
}

function emptySimulation(): SimulatedActivity {
  return { items: [], booked: {}, balances: {} };
}

/** Drops old simulated transactions, folding their amounts into the account's balance move. */
function pruned(simulated: SimulatedActivity, now: number): SimulatedActivity {
  const balances = { ...simulated.balances };
  const items: SandboxItem[] = [];
  for (const item of simulated.items) {
    if (item.bookAt >= now - keepItemsMs) {
      items.push(item);
      continue;
    }
    const moved = balances[item.account] ?? { cents: 0, at: item.bookAt };
    balances[item.account] = { cents: moved.cents + item.amountCents, at: moved.at };
  }
  const booked = Object.fromEntries(
    Object.entries(simulated.booked).filter(([, at]) => at >= now - keepItemsMs),
  );
  return { items, booked, balances };
}

/** The bank's change for one kind, as the new simulated state and a summary. */
function change(
  state: SandboxState,
  kind: Exclude<SimulationKind, "status">,
  account: SandboxAccountCode,
  now: number,
): { simulated: SimulatedActivity; summary: string; bookAfterSync?: string } {
  const simulated = pruned(state.simulated ?? emptySimulation(), now);
  const name =
    sandboxProfile(state).accounts.find((candidate) => candidate.code === account)?.name ?? account;
  const count = simulated.items.length + Object.keys(simulated.booked).length;
  const random = randomStream(state.seed, simulationStream, now % 2 ** 31, count);
  const key = `${account}-S${now}`;
  if (kind === "transactions") {
    const merchant = random.pick(everydayMerchants);
    const friend = random.pick(friends);
    const spent = random.int(merchant.minCents, merchant.maxCents);
    const items: SandboxItem[] = [
      {
        key: `${key}a`,
        account,
        amountCents: -spent,
        at: now - 1_000,
        bookAt: now - 1_000,
        description: `Card payment ${merchant.name} ${merchant.city}`,
        counterparty: null,
        merchant: merchant.name,
      },
      {
        key: `${key}b`,
        account,
        amountCents: random.int(500, 5_000),
        at: now - 1_000,
        bookAt: now - 1_000,
        description: `${friend}: transfer`,
        counterparty: friend,
        merchant: null,
      },
    ];
    return {
      simulated: { ...simulated, items: [...simulated.items, ...items] },
      summary: `two booked transactions on ${name}: a card payment at ${merchant.name} and a transfer from ${friend}`,
    };
  }
  if (kind === "booking") {
    const profile = sandboxProfile({ ...state, simulated });
    const pending = [...activityBetween(profile, now - maxBookingLagMs - 86_400_000, now)]
      .filter((item) => item.account === account && item.at <= now && item.bookAt > now)
      .sort((a, b) => b.at - a.at)[0];
    if (pending) {
      return {
        simulated: {
          ...simulated,
          booked: { ...simulated.booked, [pending.key]: Math.max(pending.at, now - 1_000) },
        },
        summary: `the pending transaction "${pending.description}" on ${name} booked`,
      };
    }
    // Nothing pending on that account now: a card payment shows as pending first, and books
    // once the sync has stored it (simulateActivity syncs twice).
    const merchant = random.pick(everydayMerchants);
    const item: SandboxItem = {
      key: `${key}p`,
      account,
      amountCents: -random.int(merchant.minCents, merchant.maxCents),
      at: now - 2_000,
      bookAt: now + 2 * 86_400_000,
      description: `Card payment ${merchant.name} ${merchant.city}`,
      counterparty: null,
      merchant: merchant.name,
    };
    return {
      simulated: { ...simulated, items: [...simulated.items, item] },
      summary: `a card payment at ${merchant.name} on ${name} showed as pending, then booked`,
      bookAfterSync: item.key,
    };
  }
  const cents = (random.chance(0.5) ? 1 : -1) * random.int(100, 2_500);
  const moved = simulated.balances[account] ?? { cents: 0, at: now };
  return {
    simulated: {
      ...simulated,
      balances: {
        ...simulated.balances,
        [account]: { cents: moved.cents + cents, at: now - 1_000 },
      },
    },
    summary: `the balance of ${name} moved by ${(cents / 100).toFixed(2)} EUR without a transaction`,
  };
}

/** Reads the sandbox state and writes its change in one write: simulations at once all stay. */
async function updateSimulation<T extends { simulated: SimulatedActivity }>(
  deps: SyncDeps,
  connectionId: string,
  update: (state: SandboxState) => T,
): Promise<T> {
  return deps.db.write(async (tx) => {
    const current = sandboxConnection(await getConnection(tx, connectionId));
    const changed = update(current);
    await tx
      .update(tx.t.connections)
      .set({ providerState: JSON.stringify({ ...current, simulated: changed.simulated }) })
      .where(eq(tx.t.connections.id, connectionId));
    return changed;
  });
}

/**
 * Makes the sandbox bank do `kind` now and syncs the connection at once (ignoring the minimum
 * interval), so the account events come out of the ordinary sync path. Throws ApiError: 404 for
 * an unknown account, 409 for a connection that is not the sandbox's, 429 past the limit.
 */
export async function simulateActivity(
  deps: SyncDeps,
  input: SimulationInput,
): Promise<SimulationResult> {
  const connection = await getConnection(deps.db, input.connectionId);
  const state = sandboxConnection(connection);
  await enforceWindow(
    deps.db,
    deps.clock,
    { key: `sandbox-simulations:${connection.serviceAccountId}`, ...simulationLimit },
    `Too many simulated activities: at most ${simulationLimit.limit} per hour per account`,
  );
  if (input.kind === "status") {
    const target: ConnectionStatus =
      input.status ?? (connection.status === "linked" ? "awaiting_auth" : "linked");
    const moved = await setSandboxStatus(deps, connection.id, target);
    return {
      connectionId: connection.id,
      kind: input.kind,
      summary: moved.changed
        ? `the connection moved from ${connection.status} to ${target}`
        : `the connection was already ${target}; nothing moved`,
      expectedEvents: moved.changed ? ["connection.status.changed"] : [],
      sync: null,
    };
  }
  if (connection.status !== "linked") {
    throw new ApiError(
      "invalid_state",
      `Connection ${connection.id} is ${connection.status}: set it back to linked (simulate a status change) before simulating bank activity.`,
    );
  }
  const account = await accountCode(deps, connection, state, input.accountId);
  const now = deps.clock.now().getTime();
  const kind = input.kind;
  const { summary, bookAfterSync } = await updateSimulation(deps, connection.id, (current) =>
    change(current, kind, account, now),
  );
  let sync = await syncConnection(deps, connection.id, { trigger: input.trigger, force: true });
  if (bookAfterSync !== undefined && sync.outcome === "succeeded") {
    await updateSimulation(deps, connection.id, (current) => {
      const simulated = current.simulated ?? emptySimulation();
      return {
        simulated: { ...simulated, booked: { ...simulated.booked, [bookAfterSync]: now - 1_000 } },
      };
    });
    sync = await syncConnection(deps, connection.id, { trigger: input.trigger, force: true });
  }
  return {
    connectionId: connection.id,
    kind: input.kind,
    summary,
    expectedEvents:
      input.kind === "balance"
        ? ["account.balance.updated"]
        : ["account.transactions.available", "account.balance.updated"],
    sync,
  };
}
