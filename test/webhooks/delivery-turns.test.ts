// The dispatcher's turns (src/webhooks/delivery/turns.ts): wake-ups coalesce into one turn, and
// turns never overlap.
import { describe, expect, test } from "bun:test";
import { createTurns } from "../../src/webhooks/delivery/turns.ts";

describe("dispatcher turns", () => {
  test("wake-ups before the turn runs coalesce into one turn", async () => {
    let turnsRun = 0;
    const turns = createTurns(async () => {
      turnsRun++;
    }, 1);
    for (let i = 0; i < 5; i++) turns.wake();
    await Bun.sleep(20);
    await turns.settled();
    expect(turnsRun).toBe(1);
    turns.wake();
    await Bun.sleep(20);
    await turns.settled();
    expect(turnsRun).toBe(2);
  });

  test("a turn starts only after the one before it ended, even when that one failed", async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const turns = createTurns(async () => undefined, 1);
    const first = turns.run(
      () =>
        new Promise<void>((resolve) => {
          order.push("first started");
          release = () => {
            order.push("first ended");
            resolve();
          };
        }),
    );
    const failing = turns.run(async () => {
      order.push("second started");
      throw new Error("the database is down");
    });
    const third = turns.run(async () => {
      order.push("third started");
      return 3;
    });
    await Bun.sleep(5);
    expect(order).toEqual(["first started"]);
    release();
    await first;
    await expect(failing).rejects.toThrow("the database is down");
    expect(await third).toBe(3);
    expect(order).toEqual(["first started", "first ended", "second started", "third started"]);
  });
});
