// The places of an account's open /v1/events/stream connections (spec 8: at most
// `maxPerAccount` at once per account). A serving process counts them across the cluster, as
// rows of event_streams: a stream takes its row when it opens and deletes it when it ends, and
// the rows of a process that is gone are deleted by the process sweep (src/cluster/processes.ts)
// within a second, so a crash does not keep an account's places taken. Tests and tools without a
// registered process count in memory.
import { count, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import type { Db } from "../../db/store.ts";

export interface StreamSlots {
  /** One of the account's `max` places, or undefined when all are taken; resolves its release. */
  take(serviceAccountId: string, max: number): Promise<(() => Promise<void>) | undefined>;
}

/** In this process alone. */
export function localStreamSlots(): StreamSlots {
  const open = new Map<string, number>();
  return {
    async take(owner, max) {
      const taken = open.get(owner) ?? 0;
      if (taken >= max) return undefined;
      open.set(owner, taken + 1);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        const left = (open.get(owner) ?? 1) - 1;
        if (left <= 0) open.delete(owner);
        else open.set(owner, left);
      };
    },
  };
}

/** Across every process on the database; `processId` is this process's registration. */
export function sharedStreamSlots(deps: {
  db: Db;
  clock: Clock;
  processId: string;
  onReleaseError: (error: unknown) => void;
}): StreamSlots {
  const { db } = deps;
  const { eventStreams } = db.t;
  return {
    async take(owner, max) {
      const id = newId();
      // Count and insert in one transaction (SQLite's single writer; a serializable one on
      // PostgreSQL), so two streams opening at once cannot both take the last place.
      const taken = await db.write(async (tx) => {
        const [row] = await tx
          .select({ n: count() })
          .from(eventStreams)
          .where(eq(eventStreams.serviceAccountId, owner));
        if ((row?.n ?? 0) >= max) return false;
        await tx.insert(eventStreams).values({
          id,
          serviceAccountId: owner,
          processId: deps.processId,
          openedAt: deps.clock.now(),
        });
        return true;
      });
      if (!taken) return undefined;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        try {
          await db.write((tx) => tx.delete(eventStreams).where(eq(eventStreams.id, id)));
        } catch (error) {
          // Left to this process's stop, or to the sweep once this process is gone.
          deps.onReleaseError(error);
        }
      };
    },
  };
}
