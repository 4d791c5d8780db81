// Real banks through the compiled binary: both provider stubs over real HTTPS with a
// throwaway CA trusted through SVC_PROVIDER_CA_FILE. Link (CLI + the server's callback), first
// sync, events, the read API showing the providers' data, consent expiry and Renew, error
// recovery and removal (which ends the Enable Banking session at the provider); a callback
// without proof of its starter attaches nothing; a SimpleFIN bank survives a failed first read.
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { compiledBinary, startBinary } from "../support/binary.ts";
import { binarySvc, type JsonSvc, openWriter } from "../support/cli-setup.ts";
import { startEnableBankingStub } from "../support/enable-banking-stub.ts";
import { createTestPki } from "../support/pki.ts";
import { portalClient, testPassword } from "../support/portal.ts";
import {
  defaultEbAccount,
  defaultEbBalances,
  enableBankingShapes,
  movedToDay,
  simplefinShape,
} from "../support/provider-fixtures.ts";
import { startSimplefinStub } from "../support/simplefin-stub.ts";
import { makeTempDir } from "../support/temp.ts";

/** Both provider stubs over real HTTPS (a throwaway CA), and the compiled binary to serve. */
async function startStubs() {
  const binary = await compiledBinary();
  const pki = await createTestPki();
  const eb = await startEnableBankingStub({ pki });
  const sf = await startSimplefinStub(pki);
  return { binary, pki, eb, sf };
}

/**
 * The served binary configured for the stubs, its CLI, a writer on its database, and `stop`,
 * which closes the writer and stops the server and both stubs.
 */
async function serviceBesideStubs(
  { binary, pki, eb, sf }: Awaited<ReturnType<typeof startStubs>>,
  extraEnv: Record<string, string> = {},
) {
  const cwd = makeTempDir("svc-real-banks");
  const env = {
    SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
    SVC_PROVIDER_CA_FILE: pki.caFile,
    SVC_ENABLE_BANKING_APPLICATION_ID: eb.applicationId,
    SVC_ENABLE_BANKING_KEY_FILE: eb.keyFile,
    SVC_ENABLE_BANKING_API_URL: eb.url,
    ...extraEnv,
  };
  const svc = binarySvc(binary, cwd, env);
  const server = await startBinary(binary, { cwd, env });
  const writer = await openWriter(cwd);
  /** As if the budget's waiting time had passed (the binary runs on the real clock). */
  const budgetPassed = (connectionId: string) =>
    writer.db.write((tx) =>
      tx
        .update(tx.t.connections)
        .set({ nextPullAt: null })
        .where(eq(tx.t.connections.id, connectionId)),
    );
  const stop = async () => {
    await writer.database.close();
    await server.stop();
    eb.stop();
    sf.stop();
  };
  return { svc, server, writer, budgetPassed, stop };
}

/**
 * An account whose owner is signed in to the served portal (its id and the session cookie), and
 * a GET of the read API with an API key of the account made through the CLI.
 */
async function signedInOwner(
  { svc, server, writer }: Awaited<ReturnType<typeof serviceBesideStubs>>,
  email: string,
) {
  const owner = await createServiceAccount(writer.db, writer.clock, {
    email,
    password: testPassword,
  });
  const portal = portalClient(server.baseUrl);
  await portal.request("POST", "/session", { email, password: testPassword });
  const account = owner.account.id;
  const key = (await svc("keys", "create", "--account", account)).json<{ key: string }>().key;
  const api = async <T>(path: string) =>
    (await (
      await fetch(`${server.baseUrl}/v1${path}`, { headers: { Authorization: `Bearer ${key}` } })
    ).json()) as T;
  return { account, cookie: portal.cookie ?? "", api };
}

/** `svc connect enable-banking` at the stub's bank (it must exit 0): the link and its authorisation. */
async function startEnableBankingLink(svc: JsonSvc, account: string) {
  const started = await svc(
    "connect",
    "enable-banking",
    "--account",
    account,
    "--country",
    "FI",
    "--bank",
    "Stub Bank",
  );
  expect(started.code).toBe(0);
  const start = started.json<{ connection_id: string; url: string }>();
  return { start, authorizationId: new URL(start.url).searchParams.get("id") ?? "" };
}

describe("real banks through the compiled binary", () => {
  test("link (an unbound callback attaches nothing), first sync, a SimpleFIN first read that fails, events, read API, consent expiry and Renew keeping every id, error recovery, removal", async () => {
    const stubs = await startStubs();
    const { eb, sf } = stubs;
    eb.sessionScopedUids = true;
    eb.accounts.push({
      uid: "eb-acc-1",
      iban: "FI2112345600000785",
      name: "Everyday EUR",
      currency: "EUR",
      balance: "1200.00",
      transactions: [1, 2, 3].map((i) => ({
        entry_reference: `eb-r${i}`,
        transaction_amount: { currency: "EUR", amount: `${i}0.00` },
        credit_debit_indicator: i === 2 ? ("CRDT" as const) : ("DBIT" as const),
        status: "BOOK" as const,
        booking_date: new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10),
      })),
    });
    const nowSeconds = Math.floor(Date.now() / 1000);
    sf.accounts.push({
      id: "ACT-9",
      name: "Checking USD",
      currency: "USD",
      balance: "500.25",
      "balance-date": nowSeconds,
      transactions: [
        { id: "sf-t1", posted: nowSeconds - 86_400, amount: "-20.00", description: "Groceries" },
      ],
    });
    const service = await serviceBesideStubs(stubs, { SVC_LOG_LEVEL: "info" });
    const { svc, server, budgetPassed } = service;
    try {
      const providers = await svc("providers");
      expect(providers.json<{ name: string; configured: boolean }[]>()).toContainEqual(
        expect.objectContaining({ name: "enable_banking", configured: true }),
      );
      // The owner signs in: a link started from the CLI is finished by the owner's browser.
      const { account, cookie, api } = await signedInOwner(service, "owner@example.com");

      // Enable Banking: the CLI prints the bank's URL; the bank sends the user to the callback.
      const { start, authorizationId } = await startEnableBankingLink(svc, account);
      const callbackQuery = `state=${encodeURIComponent(eb.lastState)}&code=${eb.approve(authorizationId)}`;
      // Without proof of who may finish it (a link started from the CLI: the owner or an
      // operator signed in), the callback attaches nothing and asks to sign in.
      const unbound = await fetch(`${server.baseUrl}/connect/callback?${callbackQuery}`);
      expect(unbound.status).toBe(403);
      expect(await unbound.text()).toContain("Sign in to finish connecting the bank");
      expect(eb.sessions.size).toBe(0);
      const signedIn = { headers: { Cookie: cookie } };
      const page = await fetch(`${server.baseUrl}/connect/callback?${callbackQuery}`, signedIn);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Your bank is connected");

      // SimpleFIN: a pasted setup token. The first read fails (503) right after the claim spent
      // the token: the connection is kept, with its access sealed, and the next sync links it.
      sf.failNextWith(503);
      const sfLinked = await svc(
        "connect",
        "simplefin",
        "--account",
        account,
        "--setup-token",
        sf.setupToken(),
      );
      expect(sfLinked.code).toBe(0);
      const sfConnection = sfLinked.json<{ connection_id: string; status: string }>();
      expect(sfConnection.status).toBe("initiated");
      expect(sf.claims).toBe(1);
      expect((await svc("sync", "--connection", sfConnection.connection_id)).code).toBe(0);
      const sfStatus = (await svc("connections", "list", "--account", account))
        .json<{ id: string; status: string }[]>()
        .find((c) => c.id === sfConnection.connection_id)?.status;
      expect(sfStatus).toBe("linked");

      // The read API shows both providers' data, amounts as signed decimal strings.
      const accounts = await api<{
        data: { account_id: string; name: string; iban: string | null }[];
      }>("/accounts");
      const ebAccount = accounts.data.find((a) => a.name === "Everyday EUR");
      const sfAccount = accounts.data.find((a) => a.name === "Checking USD");
      expect(ebAccount?.iban).toBe("FI2112345600000785");
      expect(sfAccount).toBeDefined();
      const ebTx = await api<{ data: { amount: string }[] }>(
        `/accounts/${ebAccount?.account_id}/transactions`,
      );
      expect(ebTx.data.map((t) => t.amount).sort()).toEqual(["-10.00", "-30.00", "20.00"]);
      const sfBalance = await api<{ current: string }>(
        `/accounts/${sfAccount?.account_id}/balance`,
      );
      expect(sfBalance.current).toBe("500.25");

      // Events: each status move was announced.
      const events = (await svc("events", "list", "--account", account)).json<
        { type: string; envelope: { data: { connection_id?: string; status?: string } } }[]
      >();
      const moves = events
        .filter(
          (e) =>
            e.type === "connection.status.changed" &&
            e.envelope.data.connection_id === start.connection_id,
        )
        .map((e) => e.envelope.data.status);
      expect(moves.sort()).toEqual(["awaiting_auth", "initiated", "linked"]);

      // Consent expiry: the bank reports the session expired on the next pull.
      await budgetPassed(start.connection_id);
      const ebSessionId = [...eb.sessions.keys()][0] ?? "";
      const session = eb.sessions.get(ebSessionId);
      if (session) session.status = "EXPIRED";
      await svc("sync", "--connection", start.connection_id);
      const afterExpiry = (await svc("connections", "list", "--account", account)).json<
        { id: string; status: string; consent_expires_at: string | null }[]
      >();
      expect(afterExpiry.find((c) => c.id === start.connection_id)?.status).toBe("expired");
      const consentEnd = afterExpiry.find((c) => c.id === start.connection_id)?.consent_expires_at;
      expect(consentEnd).toBe(new Date(eb.sessionValidUntil).toISOString());
      const apiConnection = await api<{ consent_expires_at: string | null }>(
        `/connections/${start.connection_id}`,
      );
      expect(apiConnection.consent_expires_at).toBe(consentEnd ?? "");

      // Renew from the CLI: the bank's URL again; the owner signed in finishes it. The
      // connection, its account and its transactions keep their ids.
      const idsBefore = await api<{ data: { account_id: string; connection_id: string }[] }>(
        "/accounts",
      );
      const txBefore = await api<{ data: { transaction_id: string }[] }>(
        `/accounts/${ebAccount?.account_id}/transactions`,
      );
      const renewal = await svc("connections", "renew", start.connection_id);
      expect(renewal.code).toBe(0);
      const renewUrl = renewal.json<{ url: string }>().url;
      const renewed = await fetch(
        `${server.baseUrl}/connect/callback?state=${encodeURIComponent(eb.lastState)}&code=${eb.approve(new URL(renewUrl).searchParams.get("id") ?? "")}`,
        signedIn,
      );
      expect(renewed.status).toBe(200);
      expect(
        (await svc("connections", "list", "--account", account))
          .json<{ id: string; status: string }[]>()
          .find((c) => c.id === start.connection_id)?.status,
      ).toBe("linked");
      expect(await api("/accounts")).toEqual(idsBefore);
      expect(await api(`/accounts/${ebAccount?.account_id}/transactions`)).toEqual(txBefore);
      const renewedEvents = (await svc("events", "list", "--account", account)).json<
        { type: string; envelope: { data: { connection_id?: string; status?: string } } }[]
      >();
      expect(
        renewedEvents.filter(
          (e) =>
            e.type === "connection.status.changed" &&
            e.envelope.data.connection_id === start.connection_id &&
            e.envelope.data.status === "linked",
        ),
      ).toHaveLength(2);

      // Error recovery: three outages make SimpleFIN `error`; the next good read, `linked`.
      for (let i = 0; i < 3; i++) {
        await budgetPassed(sfConnection.connection_id);
        sf.failNextWith(503);
        await svc("sync", "--connection", sfConnection.connection_id);
      }
      const statusOf = async (id: string) =>
        (await svc("connections", "list", "--account", account))
          .json<{ id: string; status: string }[]>()
          .find((c) => c.id === id)?.status;
      expect(await statusOf(sfConnection.connection_id)).toBe("error");
      await budgetPassed(sfConnection.connection_id);
      expect((await svc("sync", "--connection", sfConnection.connection_id)).code).toBe(0);
      expect(await statusOf(sfConnection.connection_id)).toBe("linked");
      // The budget now refuses an immediate pull and says when the next one is allowed.
      const early = await svc("sync", "--connection", sfConnection.connection_id);
      expect(early.json<{ outcome: string; next_allowed_at: string }>().outcome).toBe("too_soon");

      // Renewal ended the first session; removal ends the current one at the provider.
      expect(eb.sessions.get(ebSessionId)?.deleted).toBe(true);
      const currentSession = [...eb.sessions.keys()].at(-1) ?? "";
      const removed = await svc("connections", "remove", start.connection_id);
      expect(removed.code).toBe(0);
      expect(eb.sessions.get(currentSession)?.deleted).toBe(true);

      // No provider secret in the server's or the CLI's logs.
      const logs = server.stderr() + server.stdout();
      for (const secret of [ebSessionId, ...sf.issued.map((u) => new URL(u).password)]) {
        expect(logs).not.toContain(secret);
      }
    } finally {
      await service.stop();
    }
  }, 240_000);

  test("the documented provider shapes: link and sync through the HTTPS stubs, the connection stays linked, ids stay one per transaction", async () => {
    const stubs = await startStubs();
    const { eb, sf } = stubs;
    const today = new Date().toISOString().slice(0, 10);
    // One account per Enable Banking shape, in one session; the shape's name is the account's
    // name where the shape does not test names.
    const sessionAccounts: unknown[] = [];
    const byUid = new Map<string, { balances: unknown; reads: unknown[][] }>();
    for (const fixture of enableBankingShapes) {
      const shape = movedToDay(fixture, today);
      const accounts = shape.session_accounts ?? [{ ...defaultEbAccount, name: shape.shape }];
      for (const [i, a] of accounts.entries()) {
        // An account without uid stays without one (it is skipped, and told in the notice).
        const uid = a.uid ? `${shape.shape}-${i}` : undefined;
        sessionAccounts.push(uid ? { ...a, uid } : a);
        if (uid)
          byUid.set(uid, {
            balances: shape.balances ?? defaultEbBalances,
            reads: shape.reads as unknown[][],
          });
      }
    }
    eb.verbatim = { sessionAccounts, byUid };
    const sfShape = (name: string, read = 0) => movedToDay(simplefinShape(name), today).reads[read];
    sf.verbatim.push(
      sfShape("v2-errlist"),
      sfShape("errors-with-accounts"),
      sfShape("credit-card-negative-balance"),
    );
    const service = await serviceBesideStubs(stubs);
    const { svc, server, budgetPassed } = service;
    try {
      // The owner signs in: a link started from the CLI is finished by the owner's browser.
      const { account, cookie, api } = await signedInOwner(service, "shapes@example.com");
      type Connection = { id: string; status: string; notice: string | null };
      const connectionsNow = async () =>
        (await svc("connections", "list", "--account", account)).json<Connection[]>();

      // Enable Banking: the session lists every shape's accounts; the link's first sync reads 0.
      const { start: started, authorizationId } = await startEnableBankingLink(svc, account);
      const page = await fetch(
        `${server.baseUrl}/connect/callback?state=${encodeURIComponent(eb.lastState)}&code=${eb.approve(authorizationId)}`,
        { headers: { Cookie: cookie } },
      );
      expect(page.status).toBe(200);
      const ebId = started.connection_id;
      for (const read of [1, 2]) {
        eb.verbatimRead = read;
        await budgetPassed(ebId);
        const synced = await svc("sync", "--connection", ebId);
        expect(synced.json<{ outcome: string; status: string }>()).toMatchObject({
          outcome: "succeeded",
          status: "linked",
        });
      }
      const ebConnection = (await connectionsNow()).find((c) => c.id === ebId);
      expect(ebConnection?.status).toBe("linked");
      expect(ebConnection?.notice).toContain("1 account without an identifier was skipped");

      const accounts = (
        await api<{ data: { account_id: string; name: string }[] }>("/accounts?limit=100")
      ).data;
      const idOf = (name: string) => accounts.find((a) => a.name === name)?.account_id ?? "";
      const rows = async (name: string) =>
        (
          await api<{ data: { transaction_id: string; status: string; amount: string }[] }>(
            `/accounts/${idOf(name)}/transactions?include_pending=true&limit=500`,
          )
        ).data;
      // Overdrafts and card debt are negative decimal strings.
      expect(
        (await api<{ current: string }>(`/accounts/${idOf("overdraft-balance")}/balance`)).current,
      ).toBe("-245.67");
      expect(
        (await api<{ current: string }>(`/accounts/${idOf("Visa Platinum")}/balance`)).current,
      ).toBe("-1318.20");
      // One transaction_id per real transaction across three reads.
      const counts = {
        "entry-reference-zero": 4,
        "two-coffees": 3,
        "transaction-id-churn": 2,
        "entry-reference-renumbering": 3,
        "pending-to-booked": 1,
        "pending-dropped": 1,
      };
      for (const [name, count] of Object.entries(counts)) {
        const listed = await rows(name);
        expect({ name, count: listed.length }).toEqual({ name, count });
        expect(new Set(listed.map((t) => t.transaction_id)).size).toBe(listed.length);
      }
      expect((await rows("transaction-id-churn")).map((t) => t.amount).sort()).toEqual([
        "-1200.00",
        "-4.99",
      ]);
      expect((await rows("pending-to-booked")).map((t) => t.status)).toEqual(["booked"]);

      // SimpleFIN: a version 2 answer links; errors beside accounts are the notice, cut to host.
      const sfLinked = await svc(
        "connect",
        "simplefin",
        "--account",
        account,
        "--setup-token",
        sf.setupToken(),
      );
      const sfId = sfLinked.json<{ connection_id: string }>().connection_id;
      expect((await connectionsNow()).find((c) => c.id === sfId)).toMatchObject({
        status: "linked",
        notice: "Authentication required for My Bank - Jeff; Data for Other Bank may be delayed",
      });
      await budgetPassed(sfId);
      await svc("sync", "--connection", sfId);
      const sfNotice = (await connectionsNow()).find((c) => c.id === sfId);
      expect(sfNotice?.status).toBe("linked");
      expect(sfNotice?.notice).toContain("https://bridge.simplefin.org");
      expect(sfNotice?.notice).not.toContain("pa55");
      await budgetPassed(sfId);
      await svc("sync", "--connection", sfId);
      const visa = (
        await api<{ data: { account_id: string; name: string }[] }>("/accounts?limit=100")
      ).data.find((a) => a.name === "Rewards Visa");
      expect(
        (await api<{ current: string }>(`/accounts/${visa?.account_id}/balance`)).current,
      ).toBe("-842.17");
      expect(
        sf.calls.filter((c) => c.includes("/accounts?")).every((c) => c.includes("version=1")),
      ).toBe(true);
    } finally {
      await service.stop();
    }
  }, 240_000);
});
