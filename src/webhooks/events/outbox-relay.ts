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
 * How often a serving process on SQLite looks at the counter (one PRAGMA through SQLite, a few
 * µs, though each wake-up of an idle process costs more than the PRAGMA): every 2 ms while other
 * processes have committed within the last second (a sync or an import under way: each of its
 * events waits at most this long for its first attempt), every 25 ms otherwise (the first event
 * after a quiet spell). An idle server looking every 2-5 ms spent ~2 % of a core on it
 * (BENCHMARKS.md, 2026-12-07).
 */
export const sqliteRelayPolls = { busyMs: 2, idleMs: 25, busyForMs: 1_000 };

/** When the next look runs; returns how to cancel it (tests pass their own). */
export type PollScheduler = (run: () => void, delayMs: number) => () => void;

const unrefTimeout: PollScheduler = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * The relay on SQLite, where every process is on one machine: nothing to publish (a commit moves
 * the database's data version by itself); a serving process reads the version other processes
 * move (Database.otherProcessesCounter) as often as sqliteRelayPolls says and wakes its
 * dispatcher when it moved, so events written by `svc import`, `svc sync` or another serving
 * process are sent within a few ms, not at the next one-second tick. Its own commits do not move
 * it: they wake the dispatcher directly (outbox-signal.ts), and a spare wake-up for each would
 * cost a claim's transaction.
 */
export function createSqliteOutboxRelay(
  database: Pick<Database, "otherProcessesCounter">,
  options: {
    polls?: typeof sqliteRelayPolls;
    schedule?: PollScheduler;
    nowMs?: () => number;
  } = {},
): OutboxRelay {
  const polls = options.polls ?? sqliteRelayPolls;
  const schedule = options.schedule ?? unrefTimeout;
  const nowMs = options.nowMs ?? (() => performance.now());
  return {
    publish() {},
    async listen(onNotice) {
      const counter = database.otherProcessesCounter;
      if (!counter) return async () => undefined;
      let last = counter();
      let movedAtMs = Number.NEGATIVE_INFINITY;
      let stopped = false;
      let cancel = () => {};
      const look = () => {
        if (stopped) return;
        let version: number;
        try {
          version = counter();
        } catch {
          return; // the database was closed: no more looks
        }
        const at = nowMs();
        if (version !== last) {
          last = version;
          movedAtMs = at;
          onNotice();
        }
        cancel = schedule(look, at - movedAtMs < polls.busyForMs ? polls.busyMs : polls.idleMs);
      };
      cancel = schedule(look, polls.idleMs);
      return async () => {
        stopped = true;
        cancel();
      };
    },
  };
}
