// The bank-data CLI flow with the compiled binary, while `svc serve` runs on the same data dir
// (the CLI and the server share the database; the sync lease lives in it).
import { describe, expect, test } from "bun:test";
import { compiledBinary, runBinary, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";

const run = (binary: string, args: string[], cwd: string) =>
  runBinary(binary, args, cwd, { SVC_LOG_LEVEL: "warn" });

describe("compiled binary: sandbox bank", () => {
  test("svc sandbox connect, then svc sync, shows the data and the events while the server runs", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-bank");
    const server = await startBinary(binary, { cwd });
    try {
      const account = await run(
        binary,
        ["accounts", "create", "--email", "o@example.com", "--json"],
        cwd,
      );
      expect(account.code).toBe(0);
      const accountId = JSON.parse(account.stdout).id;
      const connect = await run(
        binary,
        ["sandbox", "connect", "--account", accountId, "--json"],
        cwd,
      );
      expect(connect.code).toBe(0);
      const connection = JSON.parse(connect.stdout);
      const sync = await run(binary, ["sync", "--json"], cwd);
      expect(sync.code).toBe(0);
      const [result] = JSON.parse(sync.stdout);
      expect(result).toMatchObject({ connection_id: connection.id, outcome: "succeeded" });
      expect(result.new_transactions).toBeGreaterThan(100);
      const events = await run(binary, ["events", "list", "--account", accountId, "--json"], cwd);
      const types = JSON.parse(events.stdout).map((e: { type: string }) => e.type);
      expect(types).toContain("account.transactions.available");
      expect(types).toContain("account.balance.updated");
      expect(types.filter((t: string) => t === "connection.status.changed")).toHaveLength(3);

      // The same data through /v1, read with a key of the account.
      const created = await run(binary, ["keys", "create", "--account", accountId, "--json"], cwd);
      const auth = { Authorization: `Bearer ${JSON.parse(created.stdout).key}` };
      const v1 = async (path: string) => {
        const response = await fetch(`${server.baseUrl}/v1${path}`, { headers: auth });
        expect(response.status).toBe(200);
        return response.json();
      };
      const accounts = await v1("/accounts");
      expect(accounts.data.length).toBeGreaterThanOrEqual(2);
      const first = accounts.data[0];
      expect(first.connection_id).toBe(connection.id);
      const balance = await v1(`/accounts/${first.account_id}/balance`);
      expect(balance.current).toMatch(/^-?\d+\.\d{2}$/);
      const balanceEvent = JSON.parse(events.stdout).find(
        (e: { type: string; envelope: { data: { account_id: string } } }) =>
          e.type === "account.balance.updated" && e.envelope.data.account_id === first.account_id,
      );
      expect(balanceEvent.envelope.data.fetched_at).toBe(balance.fetched_at);
      // Accounts come in id order, so the first may be the savings account, which can hold five
      // transactions or fewer in the window; the current account has months of daily spending.
      const pages = await Promise.all(
        accounts.data.map((account: { account_id: string }) =>
          v1(`/accounts/${account.account_id}/transactions?limit=5`),
        ),
      );
      const paged = pages.find((page) => page.next_cursor !== null);
      expect(paged?.data).toHaveLength(5);
      expect(paged?.next_cursor).toEqual(expect.any(String));
      const connections = await v1("/connections");
      expect(connections.data[0]).toMatchObject({ connection_id: connection.id, status: "linked" });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.stderr()).not.toContain('"level":"error"');
  }, 60_000);
});
