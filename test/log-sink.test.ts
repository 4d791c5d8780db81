// Log lines are written to stderr in batches (src/log/sink.ts): one write for the lines queued
// within a short delay, at once for warnings and errors, and nothing is lost when the process exits.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createLogger } from "../src/log/log.ts";
import { createBatchedSink } from "../src/log/sink.ts";

function harness(maxQueuedBytes?: number) {
  const chunks: string[] = [];
  let pending: (() => void) | undefined;
  const text = new TextDecoder("utf-8", { fatal: true });
  const sink = createBatchedSink((chunk) => chunks.push(text.decode(chunk)), {
    ...(maxQueuedBytes ? { maxQueuedBytes } : {}),
    schedule: (run) => {
      pending = run;
    },
  });
  const endTurn = () => {
    const run = pending;
    pending = undefined;
    run?.();
  };
  return { chunks, sink, endTurn };
}

describe("batched log lines", () => {
  test("the lines queued before the delay ends go out in one write, in order, each ending in a newline", () => {
    const { chunks, sink, endTurn } = harness();
    sink.write("one");
    sink.write("two");
    sink.write("three");
    expect(chunks).toEqual([]);
    endTurn();
    expect(chunks).toEqual(["one\ntwo\nthree\n"]);
    sink.write("four");
    endTurn();
    expect(chunks).toEqual(["one\ntwo\nthree\n", "four\n"]);
  });

  test("a warning or an error is written at once, with the lines queued before it", () => {
    const { chunks, sink } = harness();
    const log = createLogger({ write: sink.write, flush: sink.flush });
    log.info("first");
    log.info("second");
    expect(chunks).toEqual([]);
    log.error("broke");
    expect(chunks).toHaveLength(1);
    const lines = (chunks[0] as string).trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["first", "second", "broke"]);
  });

  test("lines wait at most until the queue holds maxQueuedBytes", () => {
    const { chunks, sink } = harness(100);
    sink.write("x".repeat(60));
    expect(chunks).toEqual([]);
    sink.write("y".repeat(60));
    expect(chunks).toEqual([`${"x".repeat(60)}\n${"y".repeat(60)}\n`]);
  });

  test("lines are written as their UTF-8 bytes, non-ASCII text and lines longer than the queue's room included", () => {
    const { chunks, sink, endTurn } = harness(100);
    sink.write("Café Zürich € 😀");
    const long = `${"ü".repeat(70_000)}end`;
    sink.write(long);
    sink.write("after");
    endTurn();
    expect(chunks.join("")).toBe(`Café Zürich € 😀\n${long}\nafter\n`);
  });

  test("a lone surrogate in a line is written as U+FFFD, as TextEncoder encodes it", () => {
    const { chunks, sink, endTurn } = harness();
    sink.write("a\uD800b");
    endTurn();
    expect(chunks.join("")).toBe("a\uFFFDb\n");
  });

  test("flush with nothing queued writes nothing", () => {
    const { chunks, sink } = harness();
    sink.flush();
    expect(chunks).toEqual([]);
  });

  test("every queued line reaches a slow stderr pipe, even when the process exits at once", async () => {
    const script = `
      import { createStderrSink } from ${JSON.stringify(join(import.meta.dir, "../src/log/sink.ts"))};
      const sink = createStderrSink();
      for (let i = 0; i < 20000; i++) sink.write(\`line \${i} \${"x".repeat(40)}\`);
      process.exit(0);
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stderr: "pipe", stdout: "ignore" });
    // A slow reader: the pipe fills long before the child exits.
    await Bun.sleep(300);
    const text = await new Response(child.stderr).text();
    expect(await child.exited).toBe(0);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(20000);
    expect(lines[19999]).toStartWith("line 19999 ");
  });
});
