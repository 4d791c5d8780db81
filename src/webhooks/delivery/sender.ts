// One delivery attempt over HTTPS (spec 4 "Webhook delivery", "Requirements on a registered
// endpoint"; docs/security.md "Webhooks: the SSRF guard"). Every property is proven in
// test/webhooks/sender.test.ts, for both transports:
// - resolve, check every address, connect to the checked address (host = IP: no second
//   lookup, so DNS rebinding cannot reach inside), SNI and Host = the URL's host name; a
//   checked answer is kept for its DNS TTL, then resolved and checked again (net/address-cache.ts);
// - TLS verified against the default roots plus the operator's CA file, given once;
// - the source address bound when it belongs to this host;
// - 10 s for the whole exchange through one timer that aborts the request (it also covers a
//   stalled TLS handshake);
// - redirects never followed (a 3xx is a failure);
// - the response body never read: discarded unread when small so the keep-alive connection can
//   be reused, otherwise the connection is closed.
// The request goes over Bun's fetch (fetch-exchange.ts: about two thirds of node:https's CPU
// per request), or over node:https (https-exchange.ts) where fetch cannot keep a promise: a bound
// source address (fetch ignores `localAddress`), a proxy in the environment (fetch would send
// through it) and more sends at once than fetch runs at once (the rest would wait inside it
// while their deadline runs).
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";
import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../log/log.ts";
import { createCheckedAddressCache } from "../../net/address-cache.ts";
import { BlockedAddressError, urlHostAddress } from "../../net/checked-addresses.ts";
import {
  ResolveError,
  type Resolver,
  systemTtlResolver,
  type TtlResolver,
  withoutTtl,
} from "../../net/resolver.ts";
import { trustContext, trustedCertificates } from "../../net/trust.ts";
import type { Exchange, ExchangeTarget } from "./exchange.ts";
import { createFetchExchange, fetchRequestsAtOnce } from "./fetch-exchange.ts";
import { createHttpsExchange } from "./https-exchange.ts";
import { deliveryHeaders } from "./signing.ts";

/** Spec 4 and 8: a 2xx within 10 seconds for the whole exchange. */
export const deliveryTimeoutMs = 10_000;
/** How many endpoint URLs a sender keeps parsed (cleared when full). */
const maxRememberedTargets = 1024;
const deliveryErrorClasses = [
  "dns",
  "blocked_address",
  "connect",
  "tls",
  "timeout",
  "redirect",
  "http_status",
] as const;
export type DeliveryErrorClass = (typeof deliveryErrorClasses)[number];

export interface SendInput {
  url: string;
  eventId: string;
  /** The stored canonical JSON, sent byte for byte. */
  body: string;
  /** The endpoint's current signing secret (derived per attempt, never stored). */
  secret: string;
}

export interface SendResult {
  startedAt: Date;
  durationMs: number;
  ok: boolean;
  statusCode: number | null;
  errorClass: DeliveryErrorClass | null;
  errorMessage: string | null;
  /** The Svc-Webhook-Signature header sent; absent when no request left (DNS, blocked address). */
  signature?: string;
}

export interface Sender {
  send(input: SendInput): Promise<SendResult>;
  /** The address deliveries are bound to, when the configured source IP is on this host. */
  readonly boundSourceAddress: string | undefined;
  /** How requests leave (see above). */
  readonly transport: Exchange["transport"];
  /** Closes pooled keep-alive connections. */
  close(): void;
}

export interface SenderOptions {
  clock: Clock;
  allowPrivate: boolean;
  /** PEM file of extra CA certificates trusted in addition to the default roots. */
  caFile?: string | undefined;
  /** Bound as the source address when it is an address of this host. */
  sourceIp?: string | undefined;
  /** A resolver without TTLs: every attempt resolves and checks again (tests, one-off sends). */
  resolve?: Resolver;
  /** A resolver with TTLs (default: the system's): checked answers are kept for their TTL. */
  resolveWithTtl?: TtlResolver;
  timeoutMs?: number;
  log?: Logger;
  /** This host's addresses (default: its network interfaces); tests pass their own. */
  hostAddresses?: string[];
  /** Where a proxy setting is looked for (default: the process's environment). */
  environment?: Record<string, string | undefined>;
  /** The most sends under way at once (deliveryConcurrency; default 1). */
  inFlight?: number;
}

/**
 * The most sends under way at once that fetch carries: what it runs at once, less room for the
 * process's other fetches (one-off sends, the portal page).
 */
const fetchInFlight = fetchRequestsAtOnce - 32;

/** The variables Bun's fetch takes a proxy from. */
const proxyVariables = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"] as const;

const tlsErrorCodes = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "INVALID_CA",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_TLS_HANDSHAKE_TIMEOUT",
]);

function classifyTransportError(error: NodeJS.ErrnoException): DeliveryErrorClass {
  const code = error.code ?? "";
  if (code === "ABORT_ERR" || error.name === "AbortError" || error.name === "TimeoutError")
    return "timeout";
  if (tlsErrorCodes.has(code) || /^ERR_SSL_|^ERR_TLS_|CERT/.test(code)) return "tls";
  if (/certificate|ssl|tls/i.test(error.message)) return "tls";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  return "connect";
}

/** Every address of this host's interfaces. */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).map((entry) => entry.address),
  );
}

/** The configured source IP when it is one of `addresses` (this host's). */
function localSourceAddress(
  sourceIp: string | undefined,
  addresses: string[] = hostAddresses(),
): string | undefined {
  if (!sourceIp) return undefined;
  const wanted = ipaddr.process(sourceIp).toString();
  const own = addresses.some(
    (address) => ipaddr.process(address.replace(/%.*$/, "")).toString() === wanted,
  );
  return own ? wanted : undefined;
}

function familyOf(address: string): 4 | 6 {
  return ipaddr.parse(address).kind() === "ipv4" ? 4 : 6;
}

export function createSender(options: SenderOptions): Sender {
  const addressCache = createCheckedAddressCache({
    resolve:
      options.resolveWithTtl ?? (options.resolve ? withoutTtl(options.resolve) : systemTtlResolver),
    clock: options.clock,
    allowPrivate: options.allowPrivate,
  });
  const timeoutMs = options.timeoutMs ?? deliveryTimeoutMs;
  const boundSourceAddress = localSourceAddress(options.sourceIp, options.hostAddresses);
  if (options.sourceIp && !boundSourceAddress) {
    options.log?.warn(
      "deliverySourceIp is not an address of this host; deliveries leave from the default route (expected when a NAT gateway owns that address)",
      { deliverySourceIp: options.sourceIp },
    );
  }
  const environment = options.environment ?? process.env;
  const proxied = proxyVariables.some((name) => Boolean(environment[name]));
  const exchange: Exchange =
    boundSourceAddress || proxied || (options.inFlight ?? 1) > fetchInFlight
      ? createHttpsExchange({
          secureContext: trustContext(options.caFile),
          localAddress: boundSourceAddress,
        })
      : createFetchExchange({ trusted: trustedCertificates(options.caFile) });
  const sourceFamily = boundSourceAddress ? familyOf(boundSourceAddress) : undefined;
  /** Endpoint URLs as parsed once (a URL's parts never change), bounded. */
  const targets = new Map<string, ExchangeTarget>();
  const targetOf = (text: string): ExchangeTarget => {
    const known = targets.get(text);
    if (known) return known;
    const url = new URL(text);
    const { literal, host } = urlHostAddress(url);
    const target: ExchangeTarget = {
      literal,
      host,
      hostname: url.hostname,
      hostHeader: url.host,
      port: url.port === "" ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
    };
    if (targets.size >= maxRememberedTargets) targets.clear();
    targets.set(text, target);
    return target;
  };

  async function send(input: SendInput): Promise<SendResult> {
    const startedAt = options.clock.now();
    const started = performance.now();
    const finish = (
      fields: Pick<SendResult, "ok" | "statusCode" | "errorClass" | "errorMessage">,
    ): SendResult => ({
      startedAt,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
      ...fields,
    });
    const failure = (
      errorClass: DeliveryErrorClass,
      errorMessage: string,
      statusCode: number | null = null,
    ) => finish({ ok: false, statusCode, errorClass, errorMessage });

    const target = targetOf(input.url);
    // The deadline: one timer for the whole exchange that aborts the request, so it also covers
    // a stalled TLS handshake (Node's `timeout` option does not).
    let timedOut = false;
    let abort: ((reason: Error) => void) | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      abort?.(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    let addresses: readonly string[];
    try {
      // Only checked addresses, kept no longer than their DNS TTL (net/address-cache.ts; spec 4:
      // the address dialled is the address checked).
      addresses = await addressCache.addressesFor(target.host, target.literal);
    } catch (error) {
      clearTimeout(timer);
      if (error instanceof BlockedAddressError) return failure("blocked_address", error.message);
      if (error instanceof ResolveError) return failure("dns", error.message);
      throw error;
    }
    const address = sourceFamily
      ? addresses.find((a) => familyOf(a) === sourceFamily)
      : addresses[0];
    if (!address) {
      clearTimeout(timer);
      return failure(
        "connect",
        `${target.hostname} has no IPv${sourceFamily} address to reach from source ${boundSourceAddress}`,
      );
    }
    if (timedOut) return failure("timeout", `no answer within ${timeoutMs} ms`);

    const headers = deliveryHeaders({
      eventId: input.eventId,
      body: input.body,
      secret: input.secret,
      attemptAt: startedAt,
    });
    const signature = headers["Svc-Webhook-Signature"];
    return new Promise<SendResult>((settle) => {
      let settled = false;
      const done = (result: SendResult) => {
        if (settled) return;
        settled = true;
        settle(signature === undefined ? result : { ...result, signature });
      };
      const request = { address, target, headers, body: input.body };
      abort = exchange.start(request, {
        answered(status) {
          if (status >= 200 && status < 300) {
            done(finish({ ok: true, statusCode: status, errorClass: null, errorMessage: null }));
          } else if (status >= 300 && status < 400) {
            done(failure("redirect", `answered ${status}; redirects are not followed`, status));
          } else {
            done(failure("http_status", `answered ${status}`, status));
          }
        },
        failed(error) {
          clearTimeout(timer);
          if (timedOut) done(failure("timeout", `no answer within ${timeoutMs} ms`));
          else done(failure(classifyTransportError(error), error.message));
        },
        ended: () => clearTimeout(timer),
      });
    });
  }

  return {
    send,
    boundSourceAddress,
    transport: exchange.transport,
    close: () => exchange.close(),
  };
}

/** The sender as the configuration describes it (CA file, source IP, private targets). */
export function senderFromConfig(
  config: Pick<
    Config,
    "unsafeAllowPrivateTargets" | "deliveryCaFile" | "deliverySourceIp" | "deliveryConcurrency"
  >,
  clock: Clock,
  extra: { resolve?: Resolver; log?: Logger; timeoutMs?: number } = {},
): Sender {
  return createSender({
    clock,
    allowPrivate: config.unsafeAllowPrivateTargets,
    caFile: config.deliveryCaFile,
    sourceIp: config.deliverySourceIp,
    inFlight: config.deliveryConcurrency,
    ...extra,
  });
}
