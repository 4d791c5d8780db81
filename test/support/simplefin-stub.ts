// A SimpleFIN Bridge stand-in written from the SimpleFIN protocol: over real HTTPS on loopback
// (throwaway CA), it hands out setup tokens whose claim URL works exactly once, and answers
// GET {access}/accounts with HTTP Basic credentials, start-date and pending filters.
import { randomBytes } from "node:crypto";
import type { Server } from "bun";
import { createTestPki, loopbackNames, type TestPki } from "./pki.ts";

export interface SimplefinStubTransaction {
  id: string;
  posted: number;
  amount: string;
  description: string;
  pending?: boolean;
  transacted_at?: number;
}

export interface SimplefinStubAccount {
  id: string;
  name: string;
  currency: string;
  balance: string;
  "available-balance"?: string;
  "balance-date": number;
  transactions: SimplefinStubTransaction[];
}

export interface SimplefinStub {
  url: string;
  caFile: string;
  accounts: SimplefinStubAccount[];
  /** Strings put in the account set's `errors` array. */
  errors: string[];
  /**
   * Account sets served verbatim instead of `accounts` (test/fixtures/providers), one per read;
   * the last one repeats.
   */
  verbatim: unknown[];
  /** Answer the next accounts read with this HTTP status instead. */
  failNextWith(status: number): void;
  /** Never answer the next accounts read (the caller's timeout ends it). */
  hangNext(): void;
  /** A fresh setup token (base64 of a one-time claim URL). */
  setupToken(): string;
  claims: number;
  /** Every access URL handed out (for tests that look for leaked secrets). */
  issued: string[];
  /** Calls seen, as "METHOD /path?query". */
  calls: string[];
  stop(): void;
}

export async function startSimplefinStub(pki?: TestPki): Promise<SimplefinStub> {
  const authority = pki ?? (await createTestPki());
  const cert = await authority.issue(loopbackNames);
  const unclaimed = new Set<string>();
  const credentials = new Set<string>();
  let failStatus: number | undefined;
  let hang = false;

  const stub: SimplefinStub = {
    url: "",
    caFile: authority.caFile,
    accounts: [],
    errors: [],
    verbatim: [],
    claims: 0,
    issued: [],
    calls: [],
    failNextWith(status) {
      failStatus = status;
    },
    hangNext() {
      hang = true;
    },
    setupToken() {
      const id = randomBytes(12).toString("hex");
      unclaimed.add(id);
      return Buffer.from(`${stub.url}/simplefin/claim/${id}`).toString("base64");
    },
    stop: () => server.stop(true),
  };

  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
    fetch(request) {
      const url = new URL(request.url);
      stub.calls.push(`${request.method} ${url.pathname}${url.search}`);
      const claim = /^\/simplefin\/claim\/([0-9a-f]+)$/.exec(url.pathname);
      if (claim && request.method === "POST") {
        const id = claim[1] ?? "";
        // A claim URL works once; afterwards (or when unknown) the Bridge answers 403.
        if (!unclaimed.delete(id)) return new Response("Forbidden", { status: 403 });
        stub.claims++;
        const user = randomBytes(8).toString("hex");
        const pass = randomBytes(16).toString("hex");
        credentials.add(`${user}:${pass}`);
        const origin = new URL(stub.url);
        const accessUrl = `https://${user}:${pass}@${origin.host}/simplefin`;
        stub.issued.push(accessUrl);
        return new Response(accessUrl);
      }
      if (url.pathname === "/simplefin/accounts" && request.method === "GET") {
        const auth = request.headers.get("authorization") ?? "";
        const pair = auth.startsWith("Basic ")
          ? Buffer.from(auth.slice(6), "base64").toString()
          : "";
        if (!credentials.has(pair)) return new Response("Forbidden", { status: 403 });
        if (hang) {
          hang = false;
          return new Promise<Response>(() => {});
        }
        if (failStatus) {
          const status = failStatus;
          failStatus = undefined;
          return new Response("failure", { status, headers: { "retry-after": "60" } });
        }
        if (stub.verbatim.length > 0)
          return Response.json(stub.verbatim.length > 1 ? stub.verbatim.shift() : stub.verbatim[0]);
        const start = Number(url.searchParams.get("start-date") ?? "0");
        const withPending = url.searchParams.get("pending") === "1";
        return Response.json({
          errors: stub.errors,
          accounts: stub.accounts.map((account) => ({
            org: { domain: "bank.example", name: "Example Bank" },
            ...account,
            transactions: account.transactions.filter((t) =>
              t.pending || t.posted === 0 ? withPending : t.posted >= start,
            ),
          })),
        });
      }
      return new Response("not found", { status: 404 });
    },
  });
  stub.url = `https://localhost:${server.port}`;
  return stub;
}
