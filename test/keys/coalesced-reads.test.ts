// The key check's shared reads on PostgreSQL (src/keys/coalesced-reads.ts): a caller is answered
// only by a read sent after it asked, so a revocation committed before a request arrived is seen
// by that request, while concurrent requests share one round trip.
import { describe, expect, test } from "bun:test";
import { coalescedReads } from "../../src/keys/coalesced-reads.ts";

/** Lets the promise callbacks already due run (no timer: nothing waits for time). */
async function settled() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** A readMany whose reads are answered by hand, recording what each read was sent with. */
function manualReads() {
  const sent: {
    keys: string[];
    answer(values: Record<string, number>): void;
    fail(e: Error): void;
  }[] = [];
  const readMany = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      sent.push({
        keys,
        answer: (values) => resolve(new Map(Object.entries(values))),
        fail: reject,
      });
    });
  return { sent, read: coalescedReads(readMany) };
}

describe("coalesced reads", () => {
  test("an idle reader sends a caller's read at once", () => {
    const { sent, read } = manualReads();
    void read("a");
    expect(sent.map((s) => s.keys)).toEqual([["a"]]);
  });

  test("a caller that asks while a read is under way is answered by the next read, sent after that one, never by the read under way", async () => {
    const { sent, read } = manualReads();
    const first = read("a");
    // Asked after the first read was sent: that read may predate a commit this caller must see.
    const second = read("a");
    const third = read("b");
    expect(sent).toHaveLength(1);
    sent[0]?.answer({ a: 1 });
    expect(await first).toBe(1);
    // The next read is sent once the first is answered, with every caller that waited.
    await settled();
    expect(sent.map((s) => s.keys)).toEqual([["a"], ["a", "b"]]);
    sent[1]?.answer({ a: 2, b: 3 });
    expect(await second).toBe(2);
    expect(await third).toBe(3);
  });

  test("callers of one read share one round trip, each key asked once, and a key the read did not find answers undefined", async () => {
    const { sent, read } = manualReads();
    void read("x");
    const waiting = ["a", "b", "a", "c", "a"].map((key) => read(key));
    sent[0]?.answer({ x: 0 });
    await settled();
    expect(sent).toHaveLength(2);
    expect(sent[1]?.keys).toEqual(["a", "b", "c"]);
    sent[1]?.answer({ a: 1, c: 3 });
    expect(await Promise.all(waiting)).toEqual([1, undefined, 1, 3, 1]);
  });

  test("a failed read fails its own callers only; the next read is still sent", async () => {
    const { sent, read } = manualReads();
    const failing = read("a");
    const next = read("b");
    sent[0]?.fail(new Error("connection lost"));
    expect(failing).rejects.toThrow("connection lost");
    await failing.catch(() => undefined);
    await settled();
    expect(sent.map((s) => s.keys)).toEqual([["a"], ["b"]]);
    sent[1]?.answer({ b: 2 });
    expect(await next).toBe(2);
    // Idle again: the next caller's read goes out at once.
    void read("c");
    await settled();
    expect(sent.map((s) => s.keys)).toEqual([["a"], ["b"], ["c"]]);
  });
});
