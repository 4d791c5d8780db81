// GET /v1/events/stream: the account's new events as Server-Sent Events, as they are
// written by any process or instance. `id:` is the event id, `event:` its type, `data:` the
// stored envelope (one line: canonical JSON has no newline).
//
// Waking: the outbox signal (this process's writers directly; other instances through PostgreSQL
// LISTEN/NOTIFY; other processes on SQLite through the change-counter poll), plus a periodic poll
// for writers that signal nothing. Each wake reads by keyset strictly after the last event sent,
// in (created_at, id) order, so a resumed stream sends every event after Last-Event-ID once.
//
// A write can commit after a later-stamped one was already sent (two instances writing at once,
// or a test send, recorded once the receiver answered): each wake also looks back `lookbackMs`
// for events this connection has not sent yet, so they still arrive, just out of order.
//
// Where it starts: the first thing sent is `id:` of the stream's starting position without an
// event (the newest event at opening, or the nil UUID when the account has none yet), so a client
// that reconnects with Last-Event-ID before any event arrived resumes from the moment it first
// connected, not from the reconnection (an EventSource takes it as its last event id; the HTML
// standard's "dispatch the event" sets it before dropping an event without data). The nil UUID as
// Last-Event-ID means "before the account's first event".
//
// Staying open: a comment every `heartbeatMs` (5 s), shorter than the listener's 10 s idle
// timeout (server/server.ts), so neither Bun nor a proxy cuts an idle stream.
//
// Revocation (spec 3: "takes effect immediately"): every wake-up and heartbeat checks the key,
// its account and entitlement again with the same check as a request (keys/authenticate.ts,
// which reuses the key's row while the database's change counter stands still); a refusal ends
// the stream with a last `event: stream.closed` whose data is the error envelope naming why.
//
// Limits: opening counts as one request of the account's rate limit (the /v1 middleware), and an
// account holds at most `maxPerAccount` streams at once across every server of the service
// (stream-slots.ts), so its keys cannot pin every connection. `closeAll` ends every stream at
// shutdown, so a graceful stop does not wait on them.
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { z } from "zod";
import { ApiError } from "../../core/errors.ts";
import type { Logger } from "../../log/log.ts";
import type { OutboxSignal } from "../../webhooks/events/outbox-signal.ts";
import type { EventType } from "../../webhooks/events/types.ts";
import type { EventPosition, EventReads, StoredEvent } from "./read.ts";
import { localStreamSlots, type StreamSlots } from "./stream-slots.ts";

export interface EventStreamOptions {
  /** How often an idle stream sends a comment line, so proxies and clients see it is alive. */
  heartbeatMs: number;
  /** How often a stream reads even without a wake-up (writers that signal nothing). */
  pollMs: number;
  /** Open streams per service account, across every server (stream-slots.ts). */
  maxPerAccount: number;
  /** How far back each read looks for events committed after later ones (see above). */
  lookbackMs: number;
}

const defaultEventStreamOptions: EventStreamOptions = {
  // Under half the listener's idle timeout (server/server.ts listenerIdleTimeoutSeconds).
  heartbeatMs: 5_000,
  pollMs: 2_000,
  maxPerAccount: 5,
  lookbackMs: 15_000,
};

/** Rows read per query; a wake reads again until a read comes back short. */
const batchSize = 100;
/** Rows the look-back reads at most per wake. */
const lookbackLimit = 500;

export interface StreamRequest {
  serviceAccountId: string;
  types: readonly EventType[];
  /** Last-Event-ID header, else the last_event_id query parameter. */
  lastEventId: string | undefined;
  /** The request's Authorization header, checked again while the stream is open. */
  authorization: string | undefined;
}

/** The key, account and entitlement check of a request: the refusal, or undefined when allowed. */
export type AccessCheck = (authorization: string | undefined) => Promise<ApiError | undefined>;

/** The event that ends a stream whose key or account was refused meanwhile. */
export const streamClosedEvent = "stream.closed";

/** RFC 9562 Nil UUID: as Last-Event-ID, the position before the account's first event. */
export const beforeFirstEventId = "00000000-0000-0000-0000-000000000000";

export interface EventStreams {
  open(c: Context, request: StreamRequest): Promise<Response>;
  /** Ends every open stream and refuses new ones (server shutdown). */
  closeAll(): void;
  /** Streams open now (tests, diagnostics). */
  openCount(): number;
}

const eventIdText = z.guid();

/** Validates a Last-Event-ID value (header or query) before anything is streamed. */
export function parseLastEventId(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const parsed = eventIdText.safeParse(value.trim());
  if (!parsed.success) {
    throw new ApiError(
      "invalid_request",
      "Invalid Last-Event-ID: must be the id (a UUID) of an event this stream sent.",
    );
  }
  // UUIDs are case-insensitive on input (RFC 9562); ids are stored in lower case.
  return parsed.data.toLowerCase();
}

function after(a: EventPosition, b: EventPosition): boolean {
  return a.createdAtMs > b.createdAtMs || (a.createdAtMs === b.createdAtMs && a.id > b.id);
}

export function createEventStreams(deps: {
  reads: EventReads;
  outbox: OutboxSignal;
  log: Logger;
  checkAccess: AccessCheck;
  options?: Partial<EventStreamOptions>;
  /** Where the account's places are counted; in this process alone when not given. */
  slots?: StreamSlots;
}): EventStreams {
  const options = { ...defaultEventStreamOptions, ...deps.options };
  const slots = deps.slots ?? localStreamSlots();
  let openHere = 0;
  const closers = new Set<() => void>();
  let closed = false;

  async function startPosition(request: StreamRequest): Promise<EventPosition | undefined> {
    const owner = request.serviceAccountId;
    if (request.lastEventId === beforeFirstEventId) return undefined;
    if (request.lastEventId !== undefined) {
      const position = await deps.reads.positionOf(owner, request.lastEventId);
      if (!position) {
        throw new ApiError(
          "invalid_request",
          `Invalid Last-Event-ID: no event ${request.lastEventId} in this account (unknown, another account's, or past retention). Reconnect without it to receive new events only, and catch up with GET /v1/events.`,
        );
      }
      return position;
    }
    // New events only: everything after the newest event at opening time.
    const newest = await deps.reads.listEvents(owner, { limit: 1 });
    const first = newest.data[0];
    return first ? { createdAtMs: first.createdAtMs, id: first.id } : undefined;
  }

  function run(
    stream: SSEStreamingApi,
    request: StreamRequest,
    start: EventPosition | undefined,
  ): Promise<void> {
    const owner = request.serviceAccountId;
    let last = start;
    // Ids sent recently (for the look-back), with their creation time.
    const sent = new Map<string, number>();
    let running = false;
    let again = false;
    let finished = false;
    let finish = () => {};
    const done = new Promise<void>((resolve) => {
      finish = () => {
        finished = true;
        resolve();
      };
    });

    const send = async (event: StoredEvent) => {
      await stream.writeSSE({ id: event.id, event: event.type, data: event.body });
      sent.set(event.id, event.createdAtMs);
      if (!last || after(event, last)) last = { createdAtMs: event.createdAtMs, id: event.id };
    };

    const readOnce = async () => {
      const filter = { types: request.types };
      for (;;) {
        const rows = await deps.reads.eventsAfter(owner, {
          ...filter,
          ...(last ? { after: last } : {}),
          limit: batchSize,
        });
        for (const event of rows) {
          if (finished) return;
          if (!sent.has(event.id)) await send(event);
        }
        if (rows.length < batchSize) break;
      }
      if (!last) return;
      // Look back for events committed late, never before where the stream started.
      const notBeforeMs = last.createdAtMs - options.lookbackMs;
      for (const [id, createdAtMs] of sent) if (createdAtMs < notBeforeMs) sent.delete(id);
      const late = await deps.reads.eventsAfter(owner, {
        ...filter,
        ...(start ? { after: start } : {}),
        notBeforeMs,
        limit: lookbackLimit,
      });
      for (const event of late) {
        if (finished) return;
        if (!sent.has(event.id) && !after(event, last)) await send(event);
      }
    };

    /** Ends the stream with the refusal when the key or account is refused now. */
    const refused = async (): Promise<boolean> => {
      // A check that fails (the database is unreachable) ends nothing: reads fail alike.
      const refusal = await deps.checkAccess(request.authorization).catch((error: unknown) => {
        deps.log.warn("checking an event stream's key failed", { error });
        return undefined;
      });
      if (!refusal || finished) return finished;
      finished = true;
      await stream
        .writeSSE({ event: streamClosedEvent, data: JSON.stringify(refusal.toBody()) })
        .catch(() => {});
      finish();
      return true;
    };

    const wake = () => {
      if (finished) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      void (async () => {
        try {
          do {
            again = false;
            if (await refused()) return;
            await readOnce();
          } while (again && !finished);
        } catch (error) {
          if (stream.aborted || stream.closed) finish();
          else deps.log.warn("reading events for an event stream failed", { error });
        } finally {
          running = false;
        }
      })();
    };

    stream.onAbort(finish);
    closers.add(finish);
    const unsubscribe = deps.outbox.subscribe(wake);
    const poll = setInterval(wake, options.pollMs);
    const heartbeat = setInterval(() => {
      refused()
        .then((ended) => (ended ? undefined : stream.write(": heartbeat\n\n")))
        .catch(finish);
    }, options.heartbeatMs);
    // At once: the starting position (see above), so the client sees the stream open and can
    // resume from here before any event.
    stream.write(`: connected\nid: ${start?.id ?? beforeFirstEventId}\n\n`).then(wake, finish);
    return done
      .finally(() => {
        clearInterval(poll);
        clearInterval(heartbeat);
        closers.delete(finish);
      })
      .then(unsubscribe);
  }

  return {
    async open(c, request) {
      if (closed) {
        throw new ApiError("unavailable", "The server is stopping; reconnect in a moment.", {
          "Retry-After": "1",
        });
      }
      const owner = request.serviceAccountId;
      const place = await slots.take(owner, options.maxPerAccount);
      if (!place) {
        throw new ApiError(
          "rate_limited",
          `At most ${options.maxPerAccount} event streams may be open at once per account (on every server of this service together); close one before opening another.`,
          { "Retry-After": "5" },
        );
      }
      openHere++;
      const release = () => {
        openHere--;
        void place();
      };
      let start: EventPosition | undefined;
      try {
        start = await startPosition(request);
      } catch (error) {
        release();
        throw error;
      }
      const response = streamSSE(c, async (stream) => {
        try {
          await run(stream, request, start);
        } finally {
          release();
        }
      });
      // Like every /v1 answer: never stored (streamSSE sets no-cache).
      response.headers.set("Cache-Control", "no-store");
      return response;
    },
    closeAll() {
      closed = true;
      for (const close of [...closers]) close();
    },
    openCount: () => openHere,
  };
}
