// db/turn-batch.ts: the reads of one turn of the event loop run back to back after it.
import { describe, expect, test } from "bun:test";
import { createTurnBatch } from "../../src/db/turn-batch.ts";

/** A schedule the test runs by hand: each call queues one run. */
function manualSchedule() {
  const runs: (() => void)[] = [];
  return {
    schedule: (run: () => void) => void runs.push(run),
    runs,
  };
}

describe("the reads of one turn run together after it", () => {
  test("reads asked for in one turn wait for the end of the turn, then run in the order asked, every one before any caller resumes", async () => {
    const { schedule, runs } = manualSchedule();
    const batch = createTurnBatch(schedule);
    const events: string[] = [];
    const read = (name: string) => () => {
      events.push(`read ${name}`);
      return name;
    };
    const answers = ["a", "b", "c"].map((name) =>
      batch.run(read(name)).then((value) => {
        events.push(`resumed ${value}`);
        return value;
      }),
    );
    await Promise.resolve();
    expect(events).toEqual([]);
    expect(runs).toHaveLength(1);
    runs[0]?.();
    expect(await Promise.all(answers)).toEqual(["a", "b", "c"]);
    expect(events).toEqual(["read a", "read b", "read c", "resumed a", "resumed b", "resumed c"]);
  });

  test("a read that throws rejects its own caller only; the others get their values", async () => {
    const { schedule, runs } = manualSchedule();
    const batch = createTurnBatch(schedule);
    const first = batch.run(() => 1);
    const failing = batch.run(() => {
      throw new Error("SQLITE_IOERR");
    });
    const third = batch.run(() => 3);
    runs[0]?.();
    expect(await first).toBe(1);
    await expect(failing).rejects.toThrow("SQLITE_IOERR");
    expect(await third).toBe(3);
  });

  test("a read asked for after a batch ran is scheduled in a batch of its own", async () => {
    const { schedule, runs } = manualSchedule();
    const batch = createTurnBatch(schedule);
    const first = batch.run(() => "first");
    runs[0]?.();
    expect(await first).toBe("first");
    const second = batch.run(() => "second");
    expect(runs).toHaveLength(2);
    runs[1]?.();
    expect(await second).toBe("second");
  });

  test("by default the batch runs after the turn's I/O (setImmediate), not in the caller's own microtasks", async () => {
    const batch = createTurnBatch();
    let ran = false;
    const answer = batch.run(() => {
      ran = true;
      return "done";
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(ran).toBe(false);
    expect(await answer).toBe("done");
    expect(ran).toBe(true);
  });

  test("by default a read asked for in the turn after the first still joins its batch (the next poll's requests wait one batch, not two)", async () => {
    const batch = createTurnBatch();
    const order: string[] = [];
    const first = batch.run(() => {
      order.push("first read");
      return "first";
    });
    void first.then(() => order.push("first resumed"));
    // What the next turn's poll hands over: a request received after this turn's I/O.
    const second = await new Promise<Promise<string>>((resolve) =>
      setImmediate(() =>
        resolve(
          batch.run(() => {
            order.push("second read");
            return "second";
          }),
        ),
      ),
    );
    expect(await second).toBe("second");
    expect(await first).toBe("first");
    expect(order).toEqual(["first read", "second read", "first resumed"]);
  });
});
