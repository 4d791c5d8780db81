// The outbox relay on PostgreSQL: NOTIFY on one channel after deliveries are committed, LISTEN in
// every serving instance (Bun's SQL client keeps one dedicated connection for it and
// re-subscribes after a reconnect). The notice carries nothing: the dispatcher that wakes claims
// from the database, so a lost or duplicated notice costs at most a tick's delay or a wasted claim.
import type { PostgresDatabase } from "../db/postgres-store.ts";
import type { OutboxRelay } from "./outbox-signal.ts";

export const outboxChannel = "svc_outbox";

export function createPostgresOutboxRelay(
  database: Pick<PostgresDatabase, "client">,
  onError: (error: unknown) => void,
): OutboxRelay {
  return {
    publish() {
      database.client.notify(outboxChannel).catch(onError);
    },
    async listen(onNotice) {
      const subscription = await database.client.listen(outboxChannel, () => onNotice());
      return () => subscription.unlisten();
    },
  };
}
