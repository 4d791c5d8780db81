// The read-API rate limit across serving processes, through the compiled binary: on PostgreSQL
// two `svc serve` instances, on SQLite `svc serve --workers 2`. 60 requests fired at once with
// two keys of one account, against a limit of 30 per minute: the cluster answers at most 30 with
// 200 (allowance is reserved from the database before it is used; src/api/middleware/shared-rate-limit.ts),
// the rest 429 — however fast they come, cached answers included.
import { describe, expect, test } from "bun:test";
import { compiledBinary, runBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { testEngine } from "../support/engine.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";

const limit = 30;

describe(`the read-API rate limit on two serving processes (${testEngine})`, () => {
  test("60 requests at once with two keys of one account against a limit of 30: at most 30 answered 200, the rest 429", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-rate-cluster");
    const env = { SVC_API_RATE_LIMIT_PER_MINUTE: String(limit) };
    const svc = async <T>(...argv: string[]) => {
      const run = await runBinary(binary, [...argv, "--json"], cwd, env);
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as T;
    };
    const servers: StartedBinary[] = [];
    try {
      expect((await runBinary(binary, ["migrate"], cwd, env)).code).toBe(0);
      const account = await svc<{ id: string }>("accounts", "create", "--email", "r@example.com");
      const keys = [
        await svc<{ key: string }>("keys", "create", "--account", account.id),
        await svc<{ key: string }>("keys", "create", "--account", account.id),
      ].map((created) => created.key);
      if (testEngine === "postgres") {
        for (let i = 0; i < 2; i++) servers.push(await startBinary(binary, { cwd, env }));
      } else {
        const started = await startBinary(binary, { cwd, env, args: ["--workers", "2"] });
        servers.push(started);
        await waitUntil(
          () => started.stderr().split('"msg":"listening"').length - 1 === 2,
          "two workers listening",
          15_000,
        );
      }
      // A connection per request, so the kernel spreads them over the workers (SQLite) and
      // every request is its own; alternating servers and keys (PostgreSQL).
      const fire = (i: number) =>
        fetch(`${(servers[i % servers.length] as StartedBinary).baseUrl}/v1/accounts`, {
          headers: { Authorization: `Bearer ${keys[i % 2]}`, Connection: "close" },
        });
      const started = performance.now();
      const responses = await Promise.all(Array.from({ length: 2 * limit }, (_, i) => fire(i)));
      const elapsedMs = performance.now() - started;
      const statuses = responses.map((r) => r.status);
      const ok = statuses.filter((s) => s === 200).length;
      expect(ok).toBeLessThanOrEqual(limit);
      // Nothing is lost either: allowance is reserved by the request that uses it.
      expect(ok).toBe(limit);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      // Fired within well under a second: faster than any after-the-fact sharing could see.
      expect(elapsedMs).toBeLessThan(5_000);
      for (const response of responses) await response.arrayBuffer();
    } finally {
      for (const server of servers) await server.stop("SIGTERM");
    }
  }, 90_000);
});
