// An Enable Banking stand-in written from the public API documentation, served over real HTTPS
// on loopback with a certificate from the test's throwaway CA. It checks every call's JWT
// (RS256 signature against the application's public key, kid, iss, aud, exp), pages
// transactions with continuation keys, and can answer each error kind on demand.
import { createHash, generateKeyPairSync, type KeyObject, randomUUID, verify } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import type { Clock } from "../../src/core/clock.ts";
import { createTestPki, loopbackNames, type TestPki } from "./pki.ts";
import { makeTempDir } from "./temp.ts";

export type StubFailure =
  | "rate_limited"
  | "expired_session"
  | "revoked_session"
  | "aspsp_error"
  | "server_error";

export interface StubTransaction {
  entry_reference: string;
  transaction_amount: { currency: string; amount: string };
  credit_debit_indicator: "CRDT" | "DBIT";
  status: "BOOK" | "PDNG";
  booking_date?: string;
  value_date?: string;
  creditor?: { name: string };
  debtor?: { name: string };
  remittance_information?: string[];
}

export interface StubAccount {
  uid: string;
  iban: string;
  name: string;
  currency: string;
  balance: string;
  transactions: StubTransaction[];
}

export interface EnableBankingStub {
  url: string;
  caFile: string;
  applicationId: string;
  keyFile: string;
  accounts: StubAccount[];
  /** Transactions per page (continuation keys beyond). */
  pageSize: number;
  /** Calls seen, as "METHOD /path?query". */
  calls: string[];
  /** The next call (after auth checks) answers this failure instead. */
  failNext(failure: StubFailure): void;
  /** Mints the code the bank's redirect would carry for an authorisation. */
  approve(authorizationId: string): string;
  sessionValidUntil: string;
  /** The `state` of the last authorisation started (what the bank's redirect carries back). */
  lastState: string;
  /** The `access.valid_until` the last authorisation asked for. */
  lastValidUntil: string;
  /** The bank list's `maximum_consent_validity` (seconds) for every bank. */
  maximumConsentValidity: number;
  /**
   * As Enable Banking does: every new session names the accounts by new `uid`s (here
   * `<uid>.s<n>`); `identification_hash` (from the IBAN) stays the same across sessions.
   */
  sessionScopedUids: boolean;
  sessions: Map<string, { status: string; deleted: boolean }>;
  /**
   * Answers served verbatim instead of `accounts` (test/fixtures/providers): the session's
   * accounts, and per account uid its balances and each read's transaction pages.
   */
  verbatim?: {
    sessionAccounts: unknown[];
    byUid: Map<string, { balances: unknown; reads: unknown[][] }>;
  };
  /** Which of `verbatim`'s reads the next transaction listing serves (the last one repeats). */
  verbatimRead: number;
  stop(): void;
}

const failures: Record<StubFailure, { status: number; error: string }> = {
  rate_limited: { status: 429, error: "ASPSP_RATE_LIMIT_EXCEEDED" },
  expired_session: { status: 401, error: "EXPIRED_SESSION" },
  revoked_session: { status: 401, error: "REVOKED_SESSION" },
  aspsp_error: { status: 502, error: "ASPSP_ERROR" },
  server_error: { status: 500, error: "INTERNAL_ERROR" },
};

function jwtProblem(
  header: string | null,
  applicationId: string,
  publicKey: KeyObject,
  nowMs: number,
): string | null {
  const token = header?.startsWith("Bearer ") ? header.slice(7) : null;
  if (!token) return "no bearer token";
  const [h, c, s] = token.split(".");
  if (!h || !c || !s) return "not a JWT";
  const head = JSON.parse(Buffer.from(h, "base64url").toString());
  const claims = JSON.parse(Buffer.from(c, "base64url").toString());
  if (head.alg !== "RS256") return "alg must be RS256";
  if (head.kid !== applicationId) return "kid is not the application id";
  if (!verify("sha256", Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, "base64url")))
    return "bad signature";
  if (claims.iss !== "enablebanking.com") return "bad iss";
  if (claims.aud !== "api.enablebanking.com") return "bad aud";
  const now = Math.floor(nowMs / 1000);
  if (typeof claims.exp !== "number" || claims.exp <= now) return "expired token";
  if (claims.exp - claims.iat > 86_400) return "token lives too long";
  return null;
}

export async function startEnableBankingStub(
  options: { pki?: TestPki; clock?: Clock } = {},
): Promise<EnableBankingStub> {
  const authority = options.pki ?? (await createTestPki());
  const nowMs = () => (options.clock ? options.clock.now().getTime() : Date.now());
  const cert = await authority.issue(loopbackNames);
  const dir = makeTempDir("svc-eb-stub");
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keyFile = join(dir, "app.pem");
  writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  const applicationId = "11111111-2222-4333-8444-555555555555";
  const pending = new Map<string, { bank: string; redirect: string; state: string }>();
  const codes = new Map<string, string>();
  let pendingFailure: StubFailure | undefined;
  let counter = 0;

  const stub: EnableBankingStub = {
    url: "",
    caFile: authority.caFile,
    applicationId,
    keyFile,
    accounts: [],
    pageSize: 2,
    calls: [],
    lastState: "",
    lastValidUntil: "",
    maximumConsentValidity: 7_776_000,
    sessionScopedUids: false,
    sessionValidUntil: new Date(nowMs() + 90 * 86_400_000).toISOString(),
    sessions: new Map(),
    verbatimRead: 0,
    failNext(failure) {
      pendingFailure = failure;
    },
    approve(authorizationId) {
      const code = `code-${++counter}`;
      codes.set(code, authorizationId);
      return code;
    },
    stop: () => server.stop(true),
  };

  const json = (body: unknown, status = 200) => Response.json(body, { status });

  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
    async fetch(request) {
      const url = new URL(request.url);
      stub.calls.push(`${request.method} ${url.pathname}${url.search}`);
      const problem = jwtProblem(
        request.headers.get("authorization"),
        applicationId,
        publicKey,
        nowMs(),
      );
      if (problem) return json({ error: "UNAUTHORIZED_ACCESS", message: problem }, 401);
      if (pendingFailure) {
        const { status, error } = failures[pendingFailure];
        pendingFailure = undefined;
        return new Response(JSON.stringify({ error, message: error }), {
          status,
          headers: { "content-type": "application/json", "retry-after": "120" },
        });
      }
      const path = url.pathname;
      if (request.method === "GET" && path === "/aspsps") {
        const country = url.searchParams.get("country") ?? "FI";
        return json({
          aspsps: [
            { name: "Stub Bank", country, maximum_consent_validity: stub.maximumConsentValidity },
          ],
        });
      }
      if (request.method === "POST" && path === "/auth") {
        const body = (await request.json()) as {
          access: { valid_until: string };
          aspsp: { name: string };
          state: string;
          redirect_url: string;
        };
        const authorizationId = `auth-${++counter}`;
        stub.lastState = body.state;
        stub.lastValidUntil = body.access.valid_until;
        pending.set(authorizationId, {
          bank: body.aspsp.name,
          redirect: body.redirect_url,
          state: body.state,
        });
        return json({
          url: `${stub.url}/bank/authorize?id=${authorizationId}`,
          authorization_id: authorizationId,
        });
      }
      if (request.method === "POST" && path === "/sessions") {
        const { code } = (await request.json()) as { code: string };
        const authorizationId = codes.get(code);
        if (!authorizationId) return json({ error: "WRONG_AUTHORIZATION_CODE" }, 422);
        codes.delete(code);
        const sessionId = `session-${randomUUID()}`;
        stub.sessions.set(sessionId, { status: "AUTHORIZED", deleted: false });
        const scope = stub.sessionScopedUids ? `.s${stub.sessions.size}` : "";
        return json({
          session_id: sessionId,
          accounts:
            stub.verbatim?.sessionAccounts ??
            stub.accounts.map((a) => ({
              uid: `${a.uid}${scope}`,
              identification_hash: createHash("sha256").update(a.iban).digest("base64"),
              account_id: { iban: a.iban },
              name: a.name,
              currency: a.currency,
              cash_account_type: "CACC",
            })),
          aspsp: { name: pending.get(authorizationId)?.bank, country: "FI" },
          access: { valid_until: stub.sessionValidUntil },
        });
      }
      const sessionMatch = /^\/sessions\/([^/]+)$/.exec(path);
      if (sessionMatch) {
        const session = stub.sessions.get(decodeURIComponent(sessionMatch[1] ?? ""));
        if (!session || session.deleted) return json({ error: "SESSION_NOT_FOUND" }, 404);
        if (request.method === "DELETE") {
          session.deleted = true;
          return new Response(null, { status: 200 });
        }
        return json({
          status: session.status,
          access: { valid_until: stub.sessionValidUntil },
          accounts: stub.accounts.map((a) => a.uid),
        });
      }
      const accountMatch = /^\/accounts\/([^/]+)\/(balances|transactions)$/.exec(path);
      const verbatim = stub.verbatim?.byUid.get(decodeURIComponent(accountMatch?.[1] ?? ""));
      if (accountMatch && verbatim && request.method === "GET") {
        if (accountMatch[2] === "balances") return json(verbatim.balances);
        const pages = verbatim.reads[Math.min(stub.verbatimRead, verbatim.reads.length - 1)] ?? [];
        // The first page, or the page after the one whose continuation_key was sent.
        const key = url.searchParams.get("continuation_key");
        const index = key
          ? pages.findIndex((p) => (p as { continuation_key?: string }).continuation_key === key) +
            1
          : 0;
        return json(pages[index] ?? { transactions: [], continuation_key: null });
      }
      const uid = decodeURIComponent(accountMatch?.[1] ?? "").replace(/\.s\d+$/, "");
      const account = stub.accounts.find((a) => a.uid === uid);
      if (accountMatch && account && request.method === "GET") {
        if (accountMatch[2] === "balances") {
          return json({
            balances: [
              {
                name: "Booked",
                balance_amount: { currency: account.currency, amount: account.balance },
                balance_type: "CLBD",
                reference_date: "2026-01-15",
              },
            ],
          });
        }
        const from = url.searchParams.get("date_from");
        const rows = account.transactions.filter(
          (t) => !from || t.status === "PDNG" || (t.booking_date ?? "") >= from,
        );
        const start = Number(url.searchParams.get("continuation_key")?.slice(5) ?? "0");
        const end = start + stub.pageSize;
        return json({
          transactions: rows.slice(start, end),
          continuation_key: end < rows.length ? `page-${end}` : null,
        });
      }
      return json({ error: "NOT_FOUND" }, 404);
    },
  });
  stub.url = `https://localhost:${server.port}`;
  return stub;
}
