// The outbox relay on PostgreSQL: NOTIFY on one channel after deliveries are committed, LISTEN in
// every serving instance (Bun's SQL client keeps one dedicated connection for it and
// re-subscribes after a reconnect). The notice carries only the sender's process id, so a process
// ignores its own (it woke its dispatcher directly); the dispatcher that wakes claims from the
// database, so a lost or duplicated notice costs at most a tick's delay or a wasted claim.
import type { PostgresDatabase } from "../db/postgres-store.ts";
import type { OutboxRelay } from "./outbox-signal.ts";

export const outboxChannel = "svc_outbox";

export function createPostgresOutboxRelay(
  database: Pick<PostgresDatabase, "client">,
  onError: (error: unknown) => void,
): OutboxRelay {
  const self = crypto.randomUUID();
  return {
    publish() {
      database.client.notify(outboxChannel, self).catch(onError);
    },
    async listen(onNotice) {
      const subscription = await database.client.listen(outboxChannel, (sender) => {
        if (sender !== self) onNotice();
      });
      return () => subscription.unlisten();
    },
  };
}
