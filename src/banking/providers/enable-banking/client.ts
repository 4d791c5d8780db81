// The Enable Banking API client: bank list, authorisation, sessions, balances and
// transactions (following continuation_key to the end). Every call carries a fresh JWT. HTTP
// failures become ProviderErrors of a kind the status table knows (errors.ts).
import { z } from "zod";
import type { Clock } from "../../../core/clock.ts";
import { withoutUrlPaths } from "../../notice.ts";
import { ProviderError, parseRetryAfter } from "../errors.ts";
import { jsonBody, type ProviderHttp, type ProviderResponse } from "../http.ts";
import type { EnableBankingSigner } from "./jwt.ts";
import {
  type EbAccount,
  type EbTransactionsPage,
  ebAccountSchema,
  ebTransactionsPageSchema,
  parseEnableBanking,
} from "./transform.ts";

/** A safety stop: a bank that keeps sending continuation keys is not followed forever. */
const maxTransactionPages = 200;

const errorBody = z
  .object({
    error: z.string().optional(),
    code: z.union([z.string(), z.number()]).optional(),
    message: z.string().optional(),
  })
  .partial();

/** Maps a failed answer to the error kind the status table acts on. */
export function enableBankingError(
  response: ProviderResponse,
  what: string,
  nowMs: number,
): ProviderError {
  let body: z.infer<typeof errorBody> = {};
  try {
    body = errorBody.parse(JSON.parse(response.text));
  } catch {
    // Not a JSON error body: the status code decides alone.
  }
  const code = `${body.error ?? ""}`.toUpperCase();
  const message = `${what}: Enable Banking answered ${response.status}${code ? ` ${code}` : ""}${
    // Its words may quote a URL (a redirect URL it refused): scheme and host only.
    body.message ? ` (${withoutUrlPaths(body.message).slice(0, 200)})` : ""
  }`;
  const retryHeader = response.headers["retry-after"];
  const retryAfterMs = parseRetryAfter(
    Array.isArray(retryHeader) ? (retryHeader[0] ?? null) : (retryHeader ?? null),
    nowMs,
  );
  if (response.status === 429 || code.includes("RATE_LIMIT"))
    return new ProviderError("rate_limited", message, retryAfterMs ? { retryAfterMs } : {});
  if (code.includes("EXPIRED")) return new ProviderError("consent_expired", message);
  if (code.includes("REVOKED") || code.includes("CLOSED"))
    return new ProviderError("consent_revoked", message);
  if (response.status >= 500 || response.status === 408 || code.startsWith("ASPSP_"))
    return new ProviderError("unavailable", message);
  return new ProviderError("bad_config", message);
}

const aspspsSchema = z.object({
  aspsps: z.array(
    z.object({
      name: z.string().min(1),
      country: z.string().length(2),
      maximum_consent_validity: z.number().int().positive().nullish(),
    }),
  ),
});
export type Aspsp = z.infer<typeof aspspsSchema>["aspsps"][number];

const authSchema = z.object({ url: z.string().url(), authorization_id: z.string().min(1) });
const accessSchema = z.object({ valid_until: z.iso.datetime({ offset: true }) });
const createdSessionSchema = z.object({
  session_id: z.string().min(1),
  accounts: z.array(ebAccountSchema),
  access: accessSchema,
});
const sessionSchema = z.object({
  status: z.string(),
  access: accessSchema,
  accounts: z.array(z.string()).optional(),
});

export type EbSessionStatus = "linked" | "awaiting_auth";

export interface EnableBankingClient {
  listAspsps(country: string): Promise<Aspsp[]>;
  startAuth(input: {
    bank: string;
    country: string;
    validUntil: Date;
    state: string;
    redirectUrl: string;
  }): Promise<{ url: string; authorizationId: string }>;
  createSession(
    code: string,
  ): Promise<{ sessionId: string; accounts: EbAccount[]; validUntil: Date }>;
  /** The session's state; an expired or revoked one throws the matching ProviderError. */
  getSession(sessionId: string): Promise<{ status: EbSessionStatus; validUntil: Date }>;
  deleteSession(sessionId: string): Promise<void>;
  balances(accountUid: string): Promise<unknown>;
  transactions(accountUid: string, dateFrom: string | undefined): Promise<EbTransactionsPage[]>;
}

export function createEnableBankingClient(deps: {
  http: ProviderHttp;
  signer: EnableBankingSigner;
  apiUrl: string;
  clock: Clock;
}): EnableBankingClient {
  const base = deps.apiUrl.replace(/\/+$/, "");

  async function call(
    method: "GET" | "POST" | "DELETE",
    path: string,
    what: string,
    body?: unknown,
  ): Promise<unknown> {
    const nowMs = deps.clock.now().getTime();
    const headers: Record<string, string> = {
      Authorization: `Bearer ${await deps.signer.token(nowMs)}`,
    };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await deps.http.request({
      method,
      url: `${base}${path}`,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (response.status < 200 || response.status >= 300)
      throw enableBankingError(response, what, nowMs);
    return response.text.length > 0 ? jsonBody(response, what) : null;
  }

  const id = (value: string) => encodeURIComponent(value);

  return {
    async listAspsps(country) {
      const raw = await call("GET", `/aspsps?country=${id(country)}`, "bank list");
      return parseEnableBanking(aspspsSchema, raw, "bank list").aspsps;
    },
    async startAuth(input) {
      const raw = await call("POST", "/auth", "authorisation", {
        access: { valid_until: input.validUntil.toISOString() },
        aspsp: { name: input.bank, country: input.country },
        state: input.state,
        redirect_url: input.redirectUrl,
        psu_type: "personal",
      });
      const parsed = parseEnableBanking(authSchema, raw, "authorisation");
      return { url: parsed.url, authorizationId: parsed.authorization_id };
    },
    async createSession(code) {
      const raw = await call("POST", "/sessions", "session", { code });
      const parsed = parseEnableBanking(createdSessionSchema, raw, "session");
      return {
        sessionId: parsed.session_id,
        accounts: parsed.accounts,
        validUntil: new Date(parsed.access.valid_until),
      };
    },
    async getSession(sessionId) {
      const raw = await call("GET", `/sessions/${id(sessionId)}`, "session");
      const parsed = parseEnableBanking(sessionSchema, raw, "session");
      const validUntil = new Date(parsed.access.valid_until);
      const status = parsed.status.toUpperCase();
      if (status === "AUTHORIZED") {
        if (validUntil.getTime() <= deps.clock.now().getTime())
          throw new ProviderError("consent_expired", "the Enable Banking session's consent ended");
        return { status: "linked", validUntil };
      }
      if (status === "EXPIRED")
        throw new ProviderError("consent_expired", "the Enable Banking session expired");
      if (status === "REVOKED" || status === "CLOSED" || status === "INVALID")
        throw new ProviderError("consent_revoked", `the Enable Banking session is ${status}`);
      if (status === "CANCELLED" || status === "REJECTED")
        throw new ProviderError("user_declined", "the user did not authorise at the bank");
      return { status: "awaiting_auth", validUntil };
    },
    async deleteSession(sessionId) {
      await call("DELETE", `/sessions/${id(sessionId)}`, "session removal");
    },
    async balances(accountUid) {
      return call("GET", `/accounts/${id(accountUid)}/balances`, "balances");
    },
    async transactions(accountUid, dateFrom) {
      const pages: EbTransactionsPage[] = [];
      const seen = new Set<string>();
      let key: string | undefined;
      for (let page = 0; page < maxTransactionPages; page++) {
        const query = new URLSearchParams();
        if (dateFrom) query.set("date_from", dateFrom);
        if (key) query.set("continuation_key", key);
        const suffix = query.size > 0 ? `?${query}` : "";
        const raw = await call(
          "GET",
          `/accounts/${id(accountUid)}/transactions${suffix}`,
          "transactions",
        );
        const parsed = parseEnableBanking(ebTransactionsPageSchema, raw, "transactions");
        pages.push(parsed);
        // An empty page may still carry a key (the bank pages by date): it is followed.
        key = parsed.continuation_key?.trim() || undefined;
        if (!key) return pages;
        if (seen.has(key))
          throw new ProviderError("unavailable", "Enable Banking repeated a continuation key");
        seen.add(key);
      }
      throw new ProviderError(
        "unavailable",
        `Enable Banking sent more than ${maxTransactionPages} pages of transactions`,
      );
    },
  };
}
