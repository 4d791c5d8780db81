// An example Svc webhook receiver, following the receiver rules (spec 4;
// docs/contract.md "Verifying a delivery"):
//  - verify the signature over the raw bytes and the timestamp (verify.ts);
//  - record the event in a durable inbox keyed on its id, then answer 200 at once: a repeat
//    (a retry, or a replay inside the 5 minutes) is answered 200 without acting;
//  - do the work afterwards, one event at a time: read the detail from /v1 (the API is the
//    source of truth; events carry identifiers only) and store each transaction once, on its id.
// Work that fails (the API unreachable, rate-limited) is tried again later; nothing that was
// answered 200 is lost on a crash, because the inbox is committed before the answer.
//
// Run it (see README.md in this folder):
//   SVC_WEBHOOK_SECRET=whsec_... SVC_API_KEY=svk_... SVC_API_BASE=https://bank-api.example.com \
//   bun examples/receiver/receiver.ts
import { openReceiverStore, type ReceiverStore } from "./store.ts";
import { type SvcEvent, verifyWebhook } from "./verify.ts";

export interface ReceiverOptions {
  /** The endpoint's signing secret, `whsec_...`. */
  secret: string;
  /** `{base_url}` of the Svc instance, without /v1. */
  apiBase: string;
  apiKey: string;
  store: ReceiverStore;
  /** Called once for each transaction stored for the first time. */
  onTransaction?: (accountId: string, transaction: Transaction) => void;
  /** Called after an event's work is done. */
  onEvent?: (event: SvcEvent) => void;
  log?: (message: string) => void;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Current time in ms (tests pass the service's fake clock). */
  now?: () => number;
  /**
   * Days before the last read that the next read starts. Svc re-reads the 7 days before its
   * last sync to catch late bookings, so a transaction can arrive with a booking date up to a
   * week old: the overlap covers that, and the id de-duplication absorbs the repeats.
   */
  overlapDays?: number;
  /** Waits between tries of an event whose work failed; the last one repeats. */
  retryDelaysMs?: number[];
  /** Largest request body accepted (events are well under 1 KiB). */
  maxBodyBytes?: number;
}

export interface Transaction {
  transaction_id: string;
  booking_date: string;
  [field: string]: unknown;
}

export interface Receiver {
  /** The webhook handler: POST with the raw body and the Svc-Webhook-* headers. */
  handle(request: Request): Promise<Response>;
  /** Resolves once no recorded event is due (tests and graceful stops). */
  drain(): Promise<void>;
  /** Stops scheduling work; the inbox keeps whatever is not done for the next start. */
  stop(): Promise<void>;
}

const dayMs = 24 * 60 * 60 * 1000;
/** The widest window Svc accepts; the first read of an account takes all of it. */
const maxWindowDays = 730;
const defaultRetryDelaysMs = [5_000, 30_000, 120_000, 600_000, 3_600_000];
/** Done events are kept this long: far beyond Svc's last retry (38.6 hours after the first). */
const keepEventsMs = 7 * dayMs;

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A failure that trying again will not fix (the account is gone): the event is set aside. */
class PermanentFailure extends Error {}

export function createReceiver(options: ReceiverOptions): Receiver {
  const { store } = options;
  const log = options.log ?? ((message: string) => console.log(message));
  const fetchImpl = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  const now = options.now ?? Date.now;
  const overlapDays = options.overlapDays ?? 7;
  const retryDelaysMs = options.retryDelaysMs ?? defaultRetryDelaysMs;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  let working: Promise<void> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let again = false;
  let lastPrune = 0;

  async function getJson<T>(path: string): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const response = await fetchImpl(`${options.apiBase}${path}`, {
        headers: { Authorization: `Bearer ${options.apiKey}` },
      });
      if (response.ok) return (await response.json()) as T;
      const body = await response.text();
      // Rate limited: wait as told (a few times), then leave it to the event's retry.
      if (response.status === 429 && attempt < 3) {
        const seconds = Number(response.headers.get("Retry-After") ?? "1");
        await Bun.sleep(Math.min(Number.isFinite(seconds) ? seconds : 1, 60) * 1000);
        continue;
      }
      const message = `GET ${path} answered ${response.status}: ${body.slice(0, 300)}`;
      // 404: not (or no longer) visible to this key; asking again will not change that.
      throw response.status === 404 ? new PermanentFailure(message) : new Error(message);
    }
  }

  /** Reads an account's transactions from shortly before the last read up to today. */
  async function readTransactions(accountId: string): Promise<number> {
    const today = isoDate(now());
    const last = options.store.lastReadTo(accountId);
    const earliest = Date.parse(`${today}T00:00:00Z`) - (maxWindowDays - 1) * dayMs;
    // The first read of an account takes its whole history (a new connection brings months);
    // later reads start `overlapDays` before the last one ended.
    const start = last ? Date.parse(`${last}T00:00:00Z`) - overlapDays * dayMs : earliest;
    const from = isoDate(Math.max(start, earliest));
    // Booked transactions only: a card payment shows as pending first and books later under a
    // new id, so storing pending rows would store the same payment twice.
    let query = `from=${from}&to=${today}&limit=500`;
    let stored = 0;
    for (;;) {
      const page = await getJson<{ data: Transaction[]; next_cursor: string | null }>(
        `/v1/accounts/${accountId}/transactions?${query}`,
      );
      for (const transaction of page.data) {
        if (store.storeTransaction(accountId, transaction, now())) {
          stored++;
          options.onTransaction?.(accountId, transaction);
        }
      }
      if (!page.next_cursor) break;
      // The cursor carries the window, so the next page needs only the cursor.
      query = `cursor=${encodeURIComponent(page.next_cursor)}&limit=500`;
    }
    // Only a complete read moves the position, so a failed read is repeated whole.
    store.setLastReadTo(accountId, today);
    return stored;
  }

  async function work(event: SvcEvent): Promise<void> {
    switch (event.type) {
      case "account.transactions.available": {
        const stored = await readTransactions(event.data.account_id);
        log(`${event.data.account_id}: ${stored} new transaction(s) stored`);
        break;
      }
      case "account.balance.updated": {
        const balance = await getJson<{ current: string; currency: string; fetched_at: string }>(
          `/v1/accounts/${event.data.account_id}/balance`,
        );
        log(`${event.data.account_id}: balance fetched at ${balance.fetched_at}`);
        // A pending payment that books moves the balance but, being the same payment, raises
        // no transactions event: read the window again so its booked row is stored.
        await readTransactions(event.data.account_id);
        break;
      }
      case "connection.status.changed": {
        const connection = await getJson<{ status: string }>(
          `/v1/connections/${event.data.connection_id}`,
        );
        log(`connection ${event.data.connection_id} is ${connection.status}`);
        break;
      }
      case "webhook.verify":
        // The one event with a value to read (spec §6): enter it in the Svc portal.
        log(`verification code for endpoint ${event.data.endpoint_id}: ${event.data.code}`);
        break;
      case "webhook.test":
        break;
    }
  }

  async function processDue(): Promise<void> {
    for (let next = store.nextDue(now()); next && !stopped; next = store.nextDue(now())) {
      const { event, attempts } = next;
      try {
        await work(event);
        store.markDone(event.id, now());
        options.onEvent?.(event);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof PermanentFailure) {
          log(`${event.type} ${event.id} set aside: ${message}`);
          store.markDone(event.id, now());
          continue;
        }
        const delay = retryDelaysMs[Math.min(attempts, retryDelaysMs.length - 1)] ?? 60_000;
        log(
          `${event.type} ${event.id} failed (try ${attempts + 1}), again in ${delay} ms: ${message}`,
        );
        store.markFailed(event.id, message, now() + delay);
      }
    }
    if (now() - lastPrune > dayMs) {
      lastPrune = now();
      store.pruneEvents(now() - keepEventsMs);
    }
    scheduleRetry();
  }

  function scheduleRetry(): void {
    clearTimeout(retryTimer);
    const at = store.nextRetryAt();
    if (at === undefined || stopped) return;
    retryTimer = setTimeout(wake, Math.max(0, at - now()));
  }

  /** Starts the worker, or asks the running one to look again before it ends. */
  function wake(): void {
    if (stopped) return;
    if (working !== undefined) {
      again = true;
      return;
    }
    working = (async () => {
      try {
        do {
          again = false;
          await processDue();
        } while (again && !stopped);
      } finally {
        // In the same turn as the last check of `again`: a wake() after it starts a new run.
        working = undefined;
      }
    })();
  }

  // Work left from before a restart is picked up at once.
  wake();

  return {
    async handle(request) {
      if (request.method !== "POST") {
        return new Response("method not allowed", { status: 405, headers: { Allow: "POST" } });
      }
      if (Number(request.headers.get("content-length") ?? 0) > maxBodyBytes) {
        return new Response("body too large", { status: 413 });
      }
      // Rule 1: the raw bytes, exactly as received; never parse and re-serialise first.
      const rawBody = new Uint8Array(await request.arrayBuffer());
      if (rawBody.byteLength > maxBodyBytes) return new Response("body too large", { status: 413 });
      const result = verifyWebhook({
        rawBody,
        headers: request.headers,
        secret: options.secret,
        nowSeconds: Math.floor(now() / 1000),
      });
      if (!result.ok) {
        log(`rejected a delivery: ${result.reason}`);
        return new Response(null, { status: 400 });
      }
      // Rule 4: record, de-duplicating on the event id; a repeat is acknowledged without acting.
      if (store.accept(result.event, now())) wake();
      return new Response(null, { status: 200 });
    },
    async drain() {
      while (working !== undefined) await working;
    },
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      await working;
    },
  };
}

export interface ServeOptions {
  port: number;
  hostname?: string;
  /** PEM files; Svc only delivers to HTTPS, so without them put a TLS proxy in front. */
  tls?: { certFile: string; keyFile: string };
}

/** Serves the receiver's handler on every path. */
export function serveReceiver(receiver: Receiver, options: ServeOptions) {
  return Bun.serve({
    port: options.port,
    ...(options.hostname ? { hostname: options.hostname } : {}),
    ...(options.tls
      ? { tls: { cert: Bun.file(options.tls.certFile), key: Bun.file(options.tls.keyFile) } }
      : {}),
    fetch: (request) => receiver.handle(request),
  });
}

if (import.meta.main) {
  const required = (name: string) => {
    const value = process.env[name];
    if (!value) {
      console.error(`error: ${name} is required (see examples/receiver/README.md)`);
      process.exit(2);
    }
    return value;
  };
  const store = openReceiverStore(process.env.RECEIVER_DB ?? "receiver.db");
  const receiver = createReceiver({
    secret: required("SVC_WEBHOOK_SECRET"),
    apiKey: required("SVC_API_KEY"),
    apiBase: required("SVC_API_BASE").replace(/\/+$/, ""),
    store,
    onTransaction: (accountId, transaction) =>
      console.log(`stored transaction ${transaction.transaction_id} of ${accountId}`),
  });
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = process.env;
  const server = serveReceiver(receiver, {
    port: Number(process.env.PORT ?? 3000),
    ...(certFile && keyFile ? { tls: { certFile, keyFile } } : {}),
  });
  console.log(`receiver listening on ${server.url}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, async () => {
      await server.stop();
      await receiver.stop();
      store.close();
      process.exit(0);
    });
  }
}
