// The transactions change feed inside the compiled binary: the sandbox bank synced by its CLI
// (real sync path, triggers from the bundled migrations), the feed read over HTTP from its
// server, from no cursor and then from the stored cursor after more syncs, each time ending with
// exactly what GET …/transactions?include_pending=true serves.
import { expect, test } from "bun:test";
import { compiledBinary, runBinary, startBinary } from "../support/binary.ts";
import { drainFeed, FeedCopy, type FeedPage } from "../support/change-feed.ts";
import { makeTempDir } from "../support/temp.ts";

async function svc(binary: string, args: string[], cwd: string) {
  const run = await runBinary(binary, [...args, "--json"], cwd);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

test("replaying the feed of a synced sandbox account gives the list, before and after more syncs", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-feed");
  const server = await startBinary(binary, { cwd });
  try {
    const account = await svc(binary, ["accounts", "create", "--email", "feed@example.com"], cwd);
    const { key } = await svc(binary, ["keys", "create", "--account", account.id], cwd);
    const connection = await svc(
      binary,
      ["sandbox", "connect", "--account", account.id, "--seed", "4"],
      cwd,
    );
    await svc(binary, ["sync", "--connection", connection.id], cwd);
    const headers = { Authorization: `Bearer ${key}` };
    const accountId = connection.accounts[0].id as string;
    const read = async (cursor?: string) => {
      const query = new URLSearchParams({ limit: "25", ...(cursor ? { cursor } : {}) });
      const response = await fetch(
        `${server.baseUrl}/v1/accounts/${accountId}/transactions/changes?${query}`,
        { headers },
      );
      expect(response.status).toBe(200);
      return (await response.json()) as FeedPage;
    };
    const listed = async () => {
      const rows = new Map<string, unknown>();
      let cursor: string | null = null;
      do {
        const query: string = cursor
          ? `cursor=${cursor}`
          : `include_pending=true&from=${new Date(Date.now() - 729 * 86_400_000).toISOString().slice(0, 10)}&limit=500`;
        const body = (await (
          await fetch(`${server.baseUrl}/v1/accounts/${accountId}/transactions?${query}`, {
            headers,
          })
        ).json()) as { data: { transaction_id: string }[]; next_cursor: string | null };
        for (const row of body.data) rows.set(row.transaction_id, row);
        cursor = body.next_cursor;
      } while (cursor);
      return rows;
    };
    const copy = new FeedCopy();
    await drainFeed(read, copy);
    const first = await listed();
    expect(first.size).toBeGreaterThan(0);
    expect([...copy.rows.entries()].sort()).toEqual([...first.entries()].sort());

    for (let i = 0; i < 3; i++) await svc(binary, ["sync", "--connection", connection.id], cwd);
    await drainFeed(read, copy);
    expect([...copy.rows.entries()].sort()).toEqual([...(await listed()).entries()].sort());
  } finally {
    await server.stop();
  }
}, 120_000);
