// Connecting the sandbox bank and driving its connection through every status of the spec's
// vocabulary (spec 2 "Connection"), so receivers can be tested against each. Every status the
// connection enters raises connection.status.changed, through the same path a sync uses.
import type { Clock } from "../../core/clock.ts";
import { ApiError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { ConnectionStatus } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
import type { OutboxSignal } from "../../webhooks/events/outbox-signal.ts";
import { applyConnectionSnapshot } from "../apply.ts";
import {
  assertServiceAccount,
  type ConnectionView,
  getConnection,
  viewConnection,
} from "../connections.ts";
import type { ConnectionSnapshot } from "../model.ts";
import { sandboxInstitution } from "./bank.ts";
import { createSandboxProvider, parseSandboxState } from "./provider.ts";

export interface SandboxDeps {
  db: Db;
  clock: Clock;
  /** Told when a status move raised events, so the dispatcher sends them at once. */
  outbox: Pick<OutboxSignal, "notify">;
}

export const maxSandboxSeed = 2 ** 32 - 1;

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] as number;
}

/**
 * Writes a status (and, for linked, the accounts the bank lists) and announces the move. The
 * accounts are stored before the linked event, so it names every account the connection carries.
 */
async function applySandboxStatus(
  deps: SandboxDeps,
  connectionId: string,
  status: ConnectionStatus,
  options: { error?: string; announce?: boolean } = {},
): Promise<boolean> {
  const connection = await getConnection(deps.db, connectionId);
  const snapshot: ConnectionSnapshot = { status, error: options.error ?? null };
  if (status === "linked") {
    const accounts = await createSandboxProvider(deps.clock).listAccounts({
      id: connection.id,
      externalId: connection.externalId,
      institution: connection.institution,
      status: "linked",
      state: JSON.parse(connection.providerState),
    });
    snapshot.accounts = accounts.map((account) => ({ account, transactions: [] }));
  }
  const result = await deps.db.write(async (tx) =>
    applyConnectionSnapshot(tx, deps.clock, await getConnection(tx, connectionId), snapshot, {
      fetchedAt: deps.clock.now(),
      ...(options.announce ? { announceStatus: true } : {}),
    }),
  );
  if (result.eventsRaised > 0) deps.outbox.notify();
  return result.statusChanged;
}

async function createConnection(
  db: SandboxDeps["db"],
  clock: Clock,
  serviceAccountId: string,
  seed: number,
): Promise<string> {
  const id = newId();
  const now = clock.now();
  await db.write((tx) =>
    tx.insert(tx.t.connections).values({
      id,
      serviceAccountId,
      provider: "sandbox",
      externalId: `sandbox-${id}`,
      institution: sandboxInstitution,
      status: "initiated",
      providerState: JSON.stringify({ seed, openedAt: now.getTime() }),
      createdAt: now,
      updatedAt: now,
    }),
  );
  return id;
}

/**
 * Connects the sandbox bank for a service account: the connection goes initiated ->
 * awaiting_auth -> linked (the sandbox authorises at once) and carries two or three accounts.
 * Its data arrives with the first sync. The same seed always gives the same customer.
 */
export async function connectSandbox(
  deps: SandboxDeps,
  input: { serviceAccountId: string; seed?: number },
): Promise<ConnectionView & { seed: number }> {
  await assertServiceAccount(deps.db, input.serviceAccountId);
  const seed = input.seed ?? randomSeed();
  if (!Number.isInteger(seed) || seed < 0 || seed > maxSandboxSeed) {
    throw new ApiError(
      "invalid_request",
      `seed must be a whole number from 0 to ${maxSandboxSeed}.`,
    );
  }
  const id = await createConnection(deps.db, deps.clock, input.serviceAccountId, seed);
  await applySandboxStatus(deps, id, "initiated", { announce: true });
  await applySandboxStatus(deps, id, "awaiting_auth");
  await applySandboxStatus(deps, id, "linked");
  return { ...(await viewConnection(deps.db, id)), seed };
}

/**
 * Drives a sandbox connection to any status of the vocabulary. `error` makes every read of the
 * sandbox bank fail until the status is set back to linked. Returns whether the status moved
 * (setting the status it already has raises no event).
 */
export async function setSandboxStatus(
  deps: SandboxDeps,
  connectionId: string,
  status: ConnectionStatus,
  message?: string,
): Promise<{ changed: boolean; connection: ConnectionView }> {
  const connection = await getConnection(deps.db, connectionId);
  if (connection.provider !== "sandbox") {
    throw new ApiError(
      "invalid_state",
      `Connection ${connectionId} is not a sandbox connection; its status comes from its provider.`,
    );
  }
  parseSandboxState(JSON.parse(connection.providerState));
  const changed = await applySandboxStatus(deps, connectionId, status, {
    error: message ?? "the sandbox bank was set to error with svc sandbox set-status",
  });
  return { changed, connection: await viewConnection(deps.db, connectionId) };
}
