// Answers given after the request's turn of the event loop (src/http/late-answer.ts): on
// PostgreSQL every read waits for a round trip; on SQLite a transactions page is read with the
// turn's other pages at its end (src/db/turn-batch.ts). A body over 15,000 bytes goes as one
// write, framed chunked, with the same bytes and other headers as an answer given at once; an
// answer given within the turn (a remembered one on SQLite) and a small body keep their
// Content-Length. Read off the wire, since fetch() hides the framing.
import { afterAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { lateAnswerBody, lateBodyCorkedBytes } from "../../src/http/late-answer.ts";
import { startApiHarness } from "../support/api.ts";
import { generatedTransactions, insertTransactions } from "../support/bank-fixtures.ts";
import { testEngine } from "../support/engine.ts";

describe("lateAnswerBody", () => {
  test("a body that fits the cork buffer is sent as it is (Content-Length kept)", () => {
    const bytes = new Uint8Array(lateBodyCorkedBytes).fill(65);
    expect(lateAnswerBody(bytes)).toBe(bytes);
  });

  test("a larger body becomes a stream of exactly its bytes", async () => {
    const bytes = new Uint8Array(lateBodyCorkedBytes + 1).map((_, i) => i % 251);
    const body = lateAnswerBody(bytes);
    expect(body).toBeInstanceOf(ReadableStream);
    expect(await new Response(body).bytes()).toEqual(bytes);
  });
});

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: Uint8Array;
}

/** One GET over a fresh connection, read whole off the socket (framing included). */
function rawGet(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, "Connection: close"];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf("\r\n\r\n");
      const [statusLine, ...headerLines] = raw
        .subarray(0, headEnd)
        .toString("latin1")
        .split("\r\n");
      const answerHeaders = new Map<string, string>();
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        answerHeaders.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
      }
      let body: Buffer = raw.subarray(headEnd + 4);
      if (answerHeaders.get("transfer-encoding") === "chunked") body = unchunk(body);
      resolve({
        status: Number(statusLine?.split(" ")[1]),
        headers: answerHeaders,
        body: new Uint8Array(body),
      });
    });
  });
}

/** A chunked body's bytes (RFC 9112 7.1), checked to end with the last chunk. */
function unchunk(framed: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = framed.indexOf("\r\n", at);
    const size = Number.parseInt(framed.subarray(at, lineEnd).toString("latin1"), 16);
    if (Number.isNaN(size)) throw new Error("malformed chunk size");
    if (size === 0) return Buffer.concat(parts);
    parts.push(framed.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

const harness = await startApiHarness({ config: { apiRateLimitPerMinute: 100_000 } });
afterAll(() => harness.stop());
const tenant = await harness.addTenant("late@example.com");
const accountId = tenant.bank.accountIds[0] as string;
const today = harness.clock.now().toISOString().slice(0, 10);
await insertTransactions(
  harness.services.db,
  harness.clock,
  accountId,
  generatedTransactions(150, { lastDate: today }),
);
const auth = { Authorization: `Bearer ${tenant.key}` };
/** Headers that differ per answer, and the framing this suite checks by itself. */
const perAnswer = new Set([
  "date",
  "svc-request-id",
  "ratelimit-remaining",
  "ratelimit-reset",
  "content-length",
  "transfer-encoding",
  "connection",
]);
/** How the body is framed: chunked when given late, Content-Length when given within the turn. */
const framing = new Set(["content-length", "transfer-encoding"]);
const sameParts = (answer: RawAnswer) => ({
  status: answer.status,
  headers: [...answer.headers].filter(([name]) => !perAnswer.has(name) && !framing.has(name)),
});

describe(`a large /v1 answer on ${testEngine}`, () => {
  test(
    testEngine === "postgres"
      ? "leaves framed chunked with the same bytes and headers, read fresh, remembered and from the cache"
      : "read fresh it leaves framed chunked; from the cache chunked when its key check waited, else with its Content-Length; the same bytes and headers each time",
    async () => {
      const path = `/v1/accounts/${accountId}/transactions?limit=100`;
      // Fresh (read lane), fresh again (remembered), then from the remembered answers.
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await rawGet(harness.server.baseUrl, path, auth));
      const reference = await (await harness.get(path, tenant.key)).bytes();
      expect(reference.byteLength).toBeGreaterThan(lateBodyCorkedBytes);
      for (const [i, answer] of answers.entries()) {
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual(reference);
        expect(sameParts(answer)).toEqual(sameParts(answers[0] as RawAnswer));
        // Read fresh (the first two) it is late on both engines. From the cache it is late when
        // its key check waited for a read (always on PostgreSQL; on SQLite after a commit, such as
        // the key's last-used time), else given within the turn: one framing, never both.
        const late = i < 2 || testEngine === "postgres" || answer.headers.has("transfer-encoding");
        if (late) {
          expect(answer.headers.get("transfer-encoding")).toBe("chunked");
          expect(answer.headers.has("content-length")).toBe(false);
        } else {
          expect(answer.headers.get("content-length")).toBe(String(reference.byteLength));
          expect(answer.headers.has("transfer-encoding")).toBe(false);
        }
      }
      // A conditional read of it is still a 304 without a body.
      const etag = answers[2]?.headers.get("etag") as string;
      const unchanged = await rawGet(harness.server.baseUrl, path, {
        ...auth,
        "If-None-Match": etag,
      });
      expect(unchanged.status).toBe(304);
      expect(unchanged.body.byteLength).toBe(0);
      expect(unchanged.headers.get("etag")).toBe(etag);
    },
  );

  test("a small answer keeps its Content-Length on either engine", async () => {
    const path = `/v1/accounts/${accountId}`;
    for (let i = 0; i < 3; i++) {
      const answer = await rawGet(harness.server.baseUrl, path, auth);
      expect(answer.status).toBe(200);
      expect(answer.body.byteLength).toBeLessThanOrEqual(lateBodyCorkedBytes);
      expect(answer.headers.get("content-length")).toBe(String(answer.body.byteLength));
    }
  });
});
