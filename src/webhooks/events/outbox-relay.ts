// The outbox relays. On PostgreSQL: NOTIFY on one channel after deliveries are committed, LISTEN in
// every serving instance (Bun's SQL client keeps one dedicated connection for it and
// re-subscribes after a reconnect). The notice carries only the sender's process id, so a process
// ignores its own (it woke its dispatcher directly); the dispatcher that wakes claims from the
// database, so a lost or duplicated notice costs at most a tick's delay or a wasted claim.
import type { PostgresDatabase } from "../../db/postgres-store.ts";
import type { Database } from "../../db/store.ts";
import type { OutboxRelay } from "./outbox-signal.ts";

const outboxChannel = "svc_outbox";

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

/**
 * How often a serving process on SQLite looks at the counter: short, because an event another
 * process commits (svc sync, svc import) waits up to this long for its first attempt; a look is
 * one PRAGMA through SQLite, a few µs (~0.2 % of a core at this rate).
 */
const sqliteChangePollMs = 2;

/**
 * The relay on SQLite, where every process is on one machine: nothing to publish (a commit moves
 * the database's data version by itself); a serving process reads the version other processes
 * move (Database.otherProcessesCounter) every 2 ms and wakes its dispatcher when it moved, so
 * events written by `svc import`, `svc sync` or another serving process are sent within a few
 * ms, not at the next one-second tick. Its own commits do not move it: they wake the dispatcher
 * directly (outbox-signal.ts), and a spare wake-up for each would cost a claim's transaction.
 */
export function createSqliteOutboxRelay(
  database: Pick<Database, "otherProcessesCounter">,
  pollMs = sqliteChangePollMs,
): OutboxRelay {
  return {
    publish() {},
    async listen(onNotice) {
      const counter = database.otherProcessesCounter;
      if (!counter) return async () => undefined;
      let last = counter();
      const poll = setInterval(() => {
        let now: number;
        try {
          now = counter();
        } catch {
          clearInterval(poll); // the database was closed
          return;
        }
        if (now === last) return;
        last = now;
        onNotice();
      }, pollMs);
      poll.unref();
      return async () => clearInterval(poll);
    },
  };
}
