// The SimpleFIN client (SimpleFIN protocol): a setup token is the base64 of a claim URL; one
// POST to it returns the access URL (credentials included: a secret, sealed at rest); reads are
// GET {access}/accounts. Both URLs come from the user, so the public-address guard applies.
import { ProviderError, parseRetryAfter } from "../errors.ts";
import { jsonBody, type ProviderHttp, type ProviderResponse, shownUrl } from "../http.ts";
import { parseAccountSet, type SimplefinAccountSet } from "./transform.ts";

/** Redirects followed from the Bridge (same host, https, address guard on each hop). */
const maxBridgeRedirects = 3;

/** Decodes a setup token into its claim URL, or says plainly why it is not one. */
export function claimUrlFromSetupToken(token: string): URL {
  const trimmed = token.trim();
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(trimmed))
    throw new ProviderError("bad_config", "the setup token is not base64 text");
  const text = Buffer.from(trimmed, "base64").toString("utf8");
  if (!URL.canParse(text))
    throw new ProviderError("bad_config", "the setup token does not hold a claim URL");
  const url = new URL(text);
  if (url.protocol !== "https:")
    throw new ProviderError("bad_config", "the setup token's claim URL must use https");
  return url;
}

function httpError(response: ProviderResponse, what: string, nowMs: number): ProviderError {
  const message = `${what}: SimpleFIN answered ${response.status}`;
  if (response.status === 429) {
    const header = response.headers["retry-after"];
    const retryAfterMs = parseRetryAfter(
      Array.isArray(header) ? (header[0] ?? null) : (header ?? null),
      nowMs,
    );
    return new ProviderError("rate_limited", message, retryAfterMs ? { retryAfterMs } : {});
  }
  if (response.status === 403)
    return new ProviderError(
      "consent_revoked",
      `${message} (access revoked or token already claimed)`,
    );
  if (response.status === 402)
    return new ProviderError("bad_config", `${message} (the Bridge subscription needs payment)`);
  if (response.status >= 500) return new ProviderError("unavailable", message);
  return new ProviderError("bad_config", message);
}

/** The protocol version every read asks for (the `version` query parameter). */
const simplefinProtocolVersion = "1";

export interface SimplefinClient {
  /** Claims the token (once) and returns the access URL. */
  claim(setupToken: string): Promise<string>;
  accounts(accessUrl: string, startDate: Date | undefined): Promise<SimplefinAccountSet>;
}

export function createSimplefinClient(deps: {
  http: ProviderHttp;
  now: () => number;
}): SimplefinClient {
  return {
    async claim(setupToken) {
      const claimUrl = claimUrlFromSetupToken(setupToken);
      const response = await deps.http.request({
        method: "POST",
        url: claimUrl.toString(),
        body: "",
        userSupplied: true,
        sameHostRedirects: maxBridgeRedirects,
      });
      if (response.status !== 200) {
        const error = httpError(response, "claiming the setup token", deps.now());
        // A refused claim is the user's token being wrong or used up, not a revoked consent.
        throw error.kind === "consent_revoked"
          ? new ProviderError("bad_config", `${error.message}; make a new setup token`)
          : error;
      }
      const accessUrl = response.text.trim();
      if (!URL.canParse(accessUrl) || new URL(accessUrl).protocol !== "https:")
        throw new ProviderError("unavailable", "SimpleFIN's claim answer is not an https URL");
      return accessUrl;
    },
    async accounts(accessUrl, startDate) {
      const url = new URL(accessUrl);
      url.pathname = `${url.pathname.replace(/\/+$/, "")}/accounts`;
      if (startDate)
        url.searchParams.set("start-date", String(Math.floor(startDate.getTime() / 1000)));
      url.searchParams.set("pending", "1");
      // The answer's format is pinned: version 1 (`errors`, `org`) until the protocol drops it;
      // a server answering in version 2 (`errlist`) is read too (transform.ts).
      url.searchParams.set("version", simplefinProtocolVersion);
      const response = await deps.http.request({
        method: "GET",
        url: url.toString(),
        userSupplied: true,
        sameHostRedirects: maxBridgeRedirects,
      });
      if (response.status !== 200)
        throw httpError(response, `reading ${shownUrl(url)}`, deps.now());
      return parseAccountSet(jsonBody(response, "SimpleFIN accounts"));
    },
  };
}
