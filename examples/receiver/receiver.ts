// An example Svc webhook receiver: verify, answer 200 at once, queue the work, de-duplicate
// events, then read the detail from /v1 (the API is the source of truth) and de-duplicate
// transactions on their id. Run it with:
//   SVC_WEBHOOK_SECRET=whsec_... SVC_API_KEY=svk_... SVC_API_BASE=https://bank-api.example.com \
//   bun examples/receiver/receiver.ts
import { openSeenStore, type SeenStore } from "./dedupe.ts";
import { type SvcEvent, verifyWebhook } from "./verify.ts";

export interface ReceiverOptions {
  secret: string;
  /** `{base_url}` of the Svc instance, without /v1. */
  apiBase: string;
  apiKey: string;
  store: SeenStore;
  /** Called for each transaction the receiver has not seen before. */
  onTransaction?: (accountId: string, transaction: Record<string, unknown>) => void;
  onEvent?: (event: SvcEvent) => void;
  log?: (message: string) => void;
  fetchImpl?: typeof fetch;
  /** How many days before the last read the next read starts (overlap catches late bookings). */
  overlapDays?: number;
}

export interface Receiver {
  handle(request: Request): Promise<Response>;
  /** Resolves once every queued event has been processed. */
  drain(): Promise<void>;
}

const day = 24 * 60 * 60 * 1000;
const isoDate = (at: Date) => at.toISOString().slice(0, 10);

export function createReceiver(options: ReceiverOptions): Receiver {
  const log = options.log ?? ((message: string) => console.log(message));
  const fetchImpl = options.fetchImpl ?? fetch;
  const overlapDays = options.overlapDays ?? 3;
  const lastRead = new Map<string, string>();
  const queue: SvcEvent[] = [];
  let working: Promise<void> = Promise.resolve();

  async function getJson<T>(path: string): Promise<T> {
    const response = await fetchImpl(`${options.apiBase}${path}`, {
      headers: { Authorization: `Bearer ${options.apiKey}` },
    });
    if (!response.ok)
      throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  async function readTransactions(accountId: string): Promise<void> {
    const today = new Date();
    const from = lastRead.get(accountId)
      ? isoDate(new Date(Date.parse(lastRead.get(accountId) as string) - overlapDays * day))
      : isoDate(new Date(today.getTime() - 7 * day));
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({
        from,
        to: isoDate(today),
        include_pending: "true",
        limit: "100",
      });
      if (cursor) query.set("cursor", cursor);
      const page: { data: Record<string, unknown>[]; next_cursor: string | null } = await getJson(
        `/v1/accounts/${accountId}/transactions?${query}`,
      );
      for (const transaction of page.data) {
        if (options.store.firstTime("transaction", String(transaction.transaction_id))) {
          options.onTransaction?.(accountId, transaction);
        }
      }
      cursor = page.next_cursor;
    } while (cursor);
    lastRead.set(accountId, isoDate(today));
  }

  async function process(event: SvcEvent): Promise<void> {
    switch (event.type) {
      case "account.transactions.available":
        await readTransactions(String(event.data.account_id));
        break;
      case "account.balance.updated": {
        const balance = await getJson<{ current: string; fetched_at: string }>(
          `/v1/accounts/${event.data.account_id}/balance`,
        );
        log(
          `balance of ${event.data.account_id} is now ${balance.current} (fetched ${balance.fetched_at})`,
        );
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
        log(
          `verification code for endpoint ${event.data.endpoint_id}: ${event.data.code} (enter it in the Svc portal)`,
        );
        break;
      case "webhook.test":
        break;
    }
    options.onEvent?.(event);
  }

  function schedule(): void {
    working = working.then(async () => {
      for (let event = queue.shift(); event; event = queue.shift()) {
        try {
          await process(event);
        } catch (error) {
          // The event was acknowledged; the next event for the account re-reads an overlapping window.
          log(
            `processing ${event.type} ${event.id} failed: ${error instanceof Error ? error.message : error}`,
          );
        }
      }
    });
  }

  return {
    async handle(request) {
      if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
      const rawBody = new Uint8Array(await request.arrayBuffer());
      const result = verifyWebhook({ rawBody, headers: request.headers, secret: options.secret });
      if (!result.ok) return new Response(`rejected: ${result.reason}`, { status: 400 });
      // De-duplicate after verification; a repeat is acknowledged without acting (rule 4).
      if (options.store.firstTime("event", result.event.id)) {
        queue.push(result.event);
        schedule();
      }
      return new Response(null, { status: 200 });
    },
    drain: () => working,
  };
}

if (import.meta.main) {
  const required = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const receiver = createReceiver({
    secret: required("SVC_WEBHOOK_SECRET"),
    apiKey: required("SVC_API_KEY"),
    apiBase: required("SVC_API_BASE").replace(/\/$/, ""),
    store: openSeenStore(process.env.RECEIVER_DB ?? "receiver.db"),
    onTransaction: (accountId, transaction) =>
      console.log(`new transaction ${transaction.transaction_id} on ${accountId}`),
  });
  const server = Bun.serve({
    port: Number(process.env.PORT ?? 3000),
    fetch: (request) => receiver.handle(request),
  });
  console.log(`receiver listening on ${server.url}`);
}
