// `svc listen`: follows GET /v1/events/stream of a running Svc and forwards each event
// to a local URL, signed as a real delivery with the listen secret. After a dropped connection it
// reconnects with backoff (backoff.ts) and resumes with Last-Event-ID, so no event is missed or
// forwarded twice: the id it resumes from is the last event's, or, before any event, the
// stream's starting position (sent at connection, api/events/stream.ts), so events written while
// it reconnects are not skipped. An event id is forwarded once per run, whatever the server sends.
// A refused key (or any answer that retrying cannot change, or a stream the server ended because
// the key or account was refused meanwhile) ends it with one line instead of a retry loop.
import type { SecureContext } from "node:tls";
import { streamClosedEvent } from "../api/events/stream.ts";
import type { EventType } from "../webhooks/events/types.ts";
import { reconnectDelayMs } from "./backoff.ts";
import { type ForwardResult, forwardEvent } from "./forward.ts";
import { readSse } from "./sse.ts";

export interface ListenOptions {
  apiUrl: URL;
  apiKey: string;
  forwardTo: URL;
  /** Only these event types (empty: all). */
  types: readonly EventType[];
  secret: string;
  /** Trusted CAs for an https API URL (system roots plus the CA file), when a CA file is given. */
  apiCa?: string[] | undefined;
  /** The same trust for an https forward target. */
  forwardSecureContext?: SecureContext | undefined;
  /** Reconnect when nothing (not even a heartbeat) arrived for this long. */
  idleTimeoutMs?: number;
}

export interface ForwardedEvent {
  at: Date;
  id: string;
  type: string;
  result: ForwardResult;
}

export interface ListenDeps {
  now(): Date;
  /** Called once per forwarded event (the one output line). */
  onForwarded(event: ForwardedEvent): void;
  /** Connection news for people (stderr). */
  notice(line: string): void;
  /** Aborted on Ctrl-C / SIGTERM: stop cleanly. */
  signal: AbortSignal;
  fetch?: typeof fetch;
  /** The reconnect delay schedule (tests shorten it). */
  delayMs?: (failures: number) => number;
}

/** The API refused in a way retrying cannot change (bad key, bad filter): exit 1. */
export class ListenRefused extends Error {
  override name = "ListenRefused";
}

/** Four missed heartbeats (5 s each, api/events/stream.ts). */
const defaultIdleTimeoutMs = 20_000;

/** Event ids remembered as forwarded (a few MB at most); the oldest are forgotten first. */
const forwardedMemory = 100_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {}
  return `HTTP ${response.status}`;
}

/** The message of a `stream.closed` event's error envelope. */
function closedReason(data: string): string {
  try {
    const body = JSON.parse(data) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return `${body.error.message} (${body.error.code})`;
  } catch {}
  return data;
}

function streamUrl(apiUrl: URL, types: readonly EventType[]): URL {
  const url = new URL(`${apiUrl.pathname.replace(/\/+$/, "")}/v1/events/stream`, apiUrl);
  if (types.length > 0) url.searchParams.set("type", types.join(","));
  return url;
}

/** Runs until `deps.signal` is aborted (resolves) or the API refuses for good (ListenRefused). */
export async function runListen(options: ListenOptions, deps: ListenDeps): Promise<void> {
  const send = deps.fetch ?? fetch;
  const delayOf = deps.delayMs ?? reconnectDelayMs;
  const idleTimeoutMs = options.idleTimeoutMs ?? defaultIdleTimeoutMs;
  const url = streamUrl(options.apiUrl, options.types);
  let lastEventId: string | undefined;
  const forwarded = new Set<string>();
  let failures = 0;
  const retryLater = async (why: string) => {
    failures++;
    const delay = delayOf(failures);
    deps.notice(`${why}; reconnecting in ${(delay / 1000).toFixed(1)} s`);
    await sleep(delay, deps.signal);
  };
  while (!deps.signal.aborted) {
    // One connection: ended by Ctrl-C, or when it has been silent for too long.
    const connection = new AbortController();
    const stopConnection = () => connection.abort();
    deps.signal.addEventListener("abort", stopConnection, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(), idleTimeoutMs);
    };
    try {
      let response: Response;
      try {
        response = await send(url, {
          headers: {
            Authorization: `Bearer ${options.apiKey}`,
            Accept: "text/event-stream",
            ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}),
          },
          signal: connection.signal,
          ...(options.apiCa ? { tls: { ca: options.apiCa } } : {}),
        } as RequestInit);
      } catch (error) {
        if (deps.signal.aborted) break;
        await retryLater(`cannot reach ${options.apiUrl.origin} (${(error as Error).message})`);
        continue;
      }
      if (response.status === 401 || response.status === 403) {
        throw new ListenRefused(`the API refused the key: ${await errorMessage(response)}`);
      }
      if (response.status === 400) throw new ListenRefused(await errorMessage(response));
      if (response.status === 404) {
        throw new ListenRefused(
          `${options.apiUrl.origin} has no /v1/events/stream: is --api-url the base URL of a Svc server?`,
        );
      }
      if (response.status !== 200 || !response.body) {
        await retryLater(
          `the event stream answered ${response.status} (${await errorMessage(response)})`,
        );
        continue;
      }
      failures = 0;
      deps.notice(
        lastEventId
          ? `connected to ${options.apiUrl.origin}; resuming after ${lastEventId}`
          : `connected to ${options.apiUrl.origin}; waiting for events`,
      );
      alive();
      try {
        for await (const message of readSse(response.body, alive)) {
          alive();
          if (message.event === streamClosedEvent) {
            throw new ListenRefused(
              `the server ended the event stream: ${closedReason(message.data)}`,
            );
          }
          if (!message.id) continue;
          if (message.positionOnly) {
            // Where the stream starts: resume from here if the connection drops before an event.
            lastEventId ??= message.id;
            continue;
          }
          if (forwarded.has(message.id)) continue;
          const at = deps.now();
          const result = await forwardEvent({
            url: options.forwardTo,
            eventId: message.id,
            body: message.data,
            secret: options.secret,
            now: at,
            secureContext: options.forwardSecureContext,
          });
          lastEventId = message.id;
          forwarded.add(message.id);
          if (forwarded.size > forwardedMemory)
            forwarded.delete(forwarded.values().next().value as string);
          deps.onForwarded({ at, id: message.id, type: message.event, result });
          if (deps.signal.aborted) break;
        }
      } catch (error) {
        if (error instanceof ListenRefused) throw error;
        if (deps.signal.aborted) break;
        if (!connection.signal.aborted) {
          await retryLater(`the event stream broke (${(error as Error).message})`);
          continue;
        }
      }
      if (deps.signal.aborted) break;
      await retryLater(
        connection.signal.aborted
          ? `nothing arrived for ${idleTimeoutMs / 1000} s`
          : "the server closed the event stream",
      );
    } finally {
      clearTimeout(idle);
      deps.signal.removeEventListener("abort", stopConnection);
    }
  }
}

/** The one line per event: time, type, id, local status, duration. */
export function formatForwarded(event: ForwardedEvent): string {
  const { result } = event;
  const status = result.statusCode !== null ? String(result.statusCode) : `failed: ${result.error}`;
  return `${event.at.toISOString()}  ${event.type.padEnd(30)}  ${event.id}  -> ${status}  ${result.durationMs} ms`;
}
