import { describe, expect, test } from "bun:test";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { tables } from "../support/tables.ts";

const { deliveries, events, webhookEndpoints } = tables;

import { newId } from "../../src/core/ids.ts";
import { canonicalJson } from "../../src/webhooks/events/canonical-json.ts";
import {
  buildEvent,
  recordAccountEvent,
  recordAccountEvents,
} from "../../src/webhooks/events/write.ts";
import { createTestServices } from "../support/services.ts";

const accountId = "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90";
const at = new Date("2026-03-01T12:00:00.000Z");

describe("canonical JSON (spec 2: compact, keys sorted)", () => {
  test("keys are sorted at every level and there are no spaces", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });
  test("non-finite numbers and functions are refused rather than mangled", () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: () => 1 })).toThrow(TypeError);
  });
  test("strings are escaped exactly as JSON.stringify does", () => {
    expect(canonicalJson({ s: 'q"\n\u2028é' })).toBe(`{"s":${JSON.stringify('q"\n\u2028é')}}`);
  });
});

describe("event envelope (spec 2): exactly id, type, created_at, api_version v1, data", () => {
  test.each([
    [
      "account.transactions.available",
      { account_id: accountId, fetched_at: at.toISOString(), new_count: 3 },
    ],
    ["account.balance.updated", { account_id: accountId, fetched_at: at.toISOString() }],
    [
      "connection.status.changed",
      { connection_id: accountId, status: "expired", account_ids: [accountId] },
    ],
    ["webhook.verify", { code: "ABCD2345", endpoint_id: accountId }],
    ["webhook.test", { endpoint_id: accountId }],
  ] as const)("%s carries only the spec's data fields", (type, data) => {
    const { body, envelope } = buildEvent(type, data as never, at);
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(["api_version", "created_at", "data", "id", "type"]);
    expect(parsed).toEqual({
      id: envelope.id,
      type,
      created_at: "2026-03-01T12:00:00.000Z",
      api_version: "v1",
      data,
    });
    expect(body).toBe(canonicalJson(parsed));
  });

  test("a field outside the spec's table (e.g. an amount) cannot reach an event", () => {
    expect(() =>
      buildEvent(
        "account.balance.updated",
        { account_id: accountId, fetched_at: at.toISOString(), amount: "12.00" } as never,
        at,
      ),
    ).toThrow(/does not match the spec/);
  });

  test("new_count must be a positive integer and ids must be UUIDs", () => {
    expect(() =>
      buildEvent(
        "account.transactions.available",
        { account_id: accountId, fetched_at: at.toISOString(), new_count: 0 },
        at,
      ),
    ).toThrow();
    expect(() => buildEvent("webhook.test", { endpoint_id: "not-a-uuid" }, at)).toThrow();
  });
});

describe("recordAccountEvent (transactional outbox)", () => {
  async function setup() {
    const services = await createTestServices();
    const { account } = await createServiceAccount(services.db, services.clock, {
      email: "o@example.com",
    });
    const endpoint = async (
      status: "active" | "paused" | "disabled",
      verified: boolean,
      options: { owner?: string; eventTypes?: string[] } = {},
    ) => {
      const id = newId();
      const now = services.clock.now();
      await services.db.write((tx) =>
        tx.insert(webhookEndpoints).values({
          id,
          serviceAccountId: options.owner ?? account.id,
          url: `https://hooks.example.com/${id}`,
          eventTypes: options.eventTypes ? JSON.stringify(options.eventTypes) : null,
          secretSalt: "s",
          secretHash: "h",
          status,
          verifiedAt: verified ? now : null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      return id;
    };
    return { services, accountId: account.id, endpoint };
  }

  test("queues one delivery per endpoint that is active and verified, none for paused, disabled or unverified", async () => {
    const { services, accountId: owner, endpoint } = await setup();
    const eligible = await endpoint("active", true);
    await endpoint("active", false);
    await endpoint("paused", true);
    const recorded = await services.db.write((tx) =>
      recordAccountEvent(tx, services.clock, {
        serviceAccountId: owner,
        type: "account.balance.updated",
        data: { account_id: accountId, fetched_at: at.toISOString() },
      }),
    );
    const rows = await services.db.select().from(deliveries);
    expect(rows.map((row) => row.endpointId)).toEqual([eligible]);
    expect(rows[0]?.status).toBe("pending");
    expect(rows[0]?.nextAttemptAt).toEqual(services.clock.now());
    expect((await services.db.select().from(events))[0]?.body).toBe(recorded.body);
  });

  test("events of several accounts in one call: each row stored whole, a delivery per eligible endpoint of its own account that wants its type, the defaults the schema gives", async () => {
    const { services, accountId: owner, endpoint } = await setup();
    const { account: other } = await createServiceAccount(services.db, services.clock, {
      email: "p@example.com",
    });
    const mine = await endpoint("active", true);
    const onlyBalances = await endpoint("active", true, {
      eventTypes: ["account.balance.updated"],
    });
    const theirs = await endpoint("active", true, { owner: other.id });
    const data = { account_id: accountId, fetched_at: at.toISOString(), new_count: 1 };
    const recorded = await services.db.write((tx) =>
      recordAccountEvents(tx, services.clock, [
        { serviceAccountId: owner, type: "account.transactions.available", data },
        { serviceAccountId: other.id, type: "account.transactions.available", data },
      ]),
    );
    const now = services.clock.now();
    const storedEvents = await services.db.select().from(events).orderBy(events.id);
    expect(storedEvents).toEqual(
      recorded
        .map((event, i) => ({
          id: event.eventId,
          serviceAccountId: i === 0 ? owner : other.id,
          type: "account.transactions.available" as const,
          body: event.body,
          createdAt: now,
        }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    const stored = await services.db.select().from(deliveries);
    const expected = [
      { eventId: recorded[0]?.eventId, endpointId: mine },
      { eventId: recorded[1]?.eventId, endpointId: theirs },
    ];
    expect(stored.map(({ eventId, endpointId }) => ({ eventId, endpointId }))).toEqual(
      expect.arrayContaining(expected),
    );
    expect(stored).toHaveLength(2);
    expect(stored.some((row) => row.endpointId === onlyBalances)).toBe(false);
    expect(recorded.map((event) => event.deliveryIds.length)).toEqual([1, 1]);
    for (const row of stored) {
      expect(row).toEqual({
        id: expect.any(String),
        eventId: row.eventId,
        endpointId: row.endpointId,
        kind: "event",
        status: "pending",
        attemptCount: 0,
        nextAttemptAt: now,
        leaseExpiresAt: null,
        claimToken: null,
        leaseHolder: null,
        manual: false,
        recoveryId: null,
        lastStatusCode: null,
        lastError: null,
        createdAt: now,
        completedAt: null,
      });
      expect(recorded.flatMap((event) => event.deliveryIds)).toContain(row.id);
    }
  });

  test("a failure later in the same transaction leaves neither the event nor its deliveries", async () => {
    const { services, accountId: owner, endpoint } = await setup();
    await endpoint("active", true);
    await expect(
      services.db.write(async (tx) => {
        await recordAccountEvent(tx, services.clock, {
          serviceAccountId: owner,
          type: "account.balance.updated",
          data: { account_id: accountId, fetched_at: at.toISOString() },
        });
        throw new Error("crash before commit");
      }),
    ).rejects.toThrow("crash before commit");
    expect(await services.db.select().from(events)).toHaveLength(0);
    expect(await services.db.select().from(deliveries)).toHaveLength(0);
  });
});
