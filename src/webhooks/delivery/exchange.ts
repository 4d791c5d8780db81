// One HTTPS request of a delivery to an address the sender has checked, as either transport
// makes it (fetch-exchange.ts, https-exchange.ts): the sender resolves, checks, signs, keeps the
// deadline and decides the outcome (sender.ts); an exchange only carries the request and says
// what came back.

/** What a delivery needs of its endpoint URL, parsed once. */
export interface ExchangeTarget {
  literal: boolean;
  /** The name to resolve, or the literal address without brackets. */
  host: string;
  /** As the URL spells it (IPv6 in brackets): SNI and messages. */
  hostname: string;
  /** The Host header: host and a non-default port. */
  hostHeader: string;
  port: number;
  path: string;
}

export interface ExchangeRequest {
  /** The checked address to dial (never a name: no second lookup). */
  address: string;
  target: ExchangeTarget;
  /** The delivery's own headers; the exchange adds Host (and what its transport needs). */
  headers: Record<string, string>;
  body: string;
}

export interface ExchangeEvents {
  /** The response's status arrived (its body is never read). */
  answered(status: number): void;
  /** No response: the transport failed (the error's message carries no URL). */
  failed(error: NodeJS.ErrnoException): void;
  /** The exchange is over: a small body was discarded, or the connection closed. */
  ended(): void;
}

export interface Exchange {
  readonly transport: "fetch" | "node:https";
  /** Sends the request; returns what aborts it (the deadline). */
  start(request: ExchangeRequest, events: ExchangeEvents): (reason: Error) => void;
  /** Closes pooled keep-alive connections. */
  close(): void;
}

/** Bodies up to this size are discarded unread so the connection can be reused. */
const discardableBodyBytes = 64 * 1024;

/** Whether a response body of this Content-Length (null: none given) is discarded, not closed. */
export function discardsBody(contentLength: string | null | undefined): boolean {
  const length = Number(contentLength ?? Number.NaN);
  return Number.isFinite(length) && length <= discardableBodyBytes;
}
