import { describe, expect, test } from "bun:test";
import { listAccountEvents } from "../../src/banking/event-log.ts";
import { importBankData } from "../../src/banking/import/ingest.ts";
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { insertServiceAccount, setup } from "./helpers.ts";

describe("listing an account's events", () => {
  test("newest first in the order they were written, with the parsed envelope; filtered by type; limited", async () => {
    const s = await setup();
    await importBankData(s.services, s.accountId, structuredClone(validFixture));
    const all = await listAccountEvents(s.services.db, s.accountId);
    expect(all.map((e) => e.type)).toEqual([
      "connection.status.changed",
      "account.balance.updated",
      "account.transactions.available",
      "account.balance.updated",
      "account.transactions.available",
      "connection.status.changed",
    ]);
    for (const event of all) {
      expect(event.envelope).toMatchObject({
        id: event.id,
        type: event.type,
        created_at: event.created_at,
        api_version: "v1",
      });
    }
    const balanceOnly = await listAccountEvents(s.services.db, s.accountId, {
      type: "account.balance.updated",
      limit: 1,
    });
    expect(balanceOnly).toEqual(all.slice(1, 2));
  });

  test("only the account's own events; unknown accounts and bad limits are refused", async () => {
    const s = await setup();
    await importBankData(s.services, s.accountId, structuredClone(validFixture));
    const other = await insertServiceAccount(s.services);
    expect(await listAccountEvents(s.services.db, other)).toEqual([]);
    await expect(
      listAccountEvents(s.services.db, "6f1c0000-0000-4000-8000-000000000000"),
    ).rejects.toThrow(expect.objectContaining({ code: "not_found" }));
    await expect(listAccountEvents(s.services.db, s.accountId, { limit: 0 })).rejects.toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
  });
});
