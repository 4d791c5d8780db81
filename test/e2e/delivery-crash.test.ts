// Crash safety end to end (delivery is at-least-once and nothing is lost on a crash): the compiled
// binary is killed with SIGKILL while deliveries are in flight and pending; after a restart
// every event reaches the receiver.
import { describe, expect, test } from "bun:test";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { startBinary } from "../support/binary.ts";
import {
  deliveringBinary,
  inProcessSvc,
  openWriter,
  verifiedEndpointThroughCli,
} from "../support/cli-setup.ts";
import { neverAnswer, startReceiver } from "../support/receiver.ts";

const eventCount = 30;

/**
 * `restart`: the killed server is started again; `survivor`: a second server on the same data,
 * already running, carries on. Either way the first delivery after the kill comes within 2 s of
 * the moment a live server could send it (readiness, or the kill).
 */
async function killWithSendsInFlight(mode: "restart" | "survivor") {
  const { binary, cert, cwd, env } = await deliveringBinary("svc-crash");

  // Phase 1 the receiver accepts verification but holds every account event unanswered.
  let healthy = false;
  const answered = new Set<string>();
  const receiver = startReceiver(cert, async (req) => {
    const event = JSON.parse(req.body);
    if (event.type === "webhook.verify") return new Response(null, { status: 200 });
    if (!healthy) return neverAnswer(req);
    answered.add(event.id);
    return new Response(null, { status: 200 });
  });
  try {
    const svc = inProcessSvc(cwd, env);
    const { accountId, endpointId } = await verifiedEndpointThroughCli(
      svc,
      receiver,
      "crash@example.com",
      receiver.url("/crash"),
    );

    const first = await startBinary(binary, { cwd, env });
    // Another process (like `svc sync`) writes the events; the server's tick picks them up.
    const writer = await openWriter(cwd);
    const eventIds = await writer.db.write(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < eventCount; i++) {
        const recorded = await recordAccountEvent(tx, writer.clock, {
          serviceAccountId: accountId,
          type: "account.transactions.available",
          data: {
            account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
            fetched_at: new Date().toISOString(),
            new_count: i + 1,
          },
        });
        ids.push(recorded.eventId);
      }
      return ids;
    });
    await writer.database.close();
    // The default per-endpoint cap (8) of them are in flight, the rest pending.
    const accountEvents = () =>
      receiver.requests.filter((r) => JSON.parse(r.body).type !== "webhook.verify");
    for (let i = 0; i < 400 && accountEvents().length < 8; i++) await Bun.sleep(25);

    // The survivor starts while the first holds the endpoint's cap: it can send nothing yet.
    const survivor = mode === "survivor" ? await startBinary(binary, { cwd, env }) : undefined;
    if (survivor) await Bun.sleep(1_500);
    expect(accountEvents().length).toBe(8);
    expect(await first.stop("SIGKILL")).not.toBe(0);
    expect(first.stderr()).not.toContain("whsec_");
    healthy = true;

    const before = accountEvents().length;
    const second = survivor ?? (await startBinary(binary, { cwd, env }));
    const readyAt = Date.now();
    const deadline = Date.now() + 45_000;
    while (answered.size < eventCount && Date.now() < deadline) await Bun.sleep(100);
    expect([...answered].sort()).toEqual([...eventIds].sort());
    expect(await second.stop("SIGTERM")).toBe(0);
    // The restarted process tells the killed one is gone and takes its leases over at once,
    // instead of waiting for them to run out (20 s) with the endpoint's cap full.
    const resumedAt = (accountEvents()[before] as { receivedAt: number }).receivedAt;
    expect(resumedAt - readyAt).toBeLessThan(2_000);
    // Sent twice: only the 8 that were in flight at the kill.
    const times = new Map<string, number>();
    for (const r of accountEvents()) {
      const id = JSON.parse(r.body).id as string;
      times.set(id, (times.get(id) ?? 0) + 1);
    }
    expect([...times.values()].every((n) => n <= 2)).toBe(true);
    expect([...times.values()].filter((n) => n === 2).length).toBeLessThanOrEqual(8);

    const log = (await svc("deliveries", "list", "--endpoint", endpointId, "--limit", "100")).json<
      { kind: string; status: string }[]
    >();
    const events = log.filter((d) => d.kind === "event");
    expect(events).toHaveLength(eventCount);
    expect(events.every((d) => d.status === "succeeded")).toBe(true);
  } finally {
    await receiver.stop();
  }
}

describe("kill -9 with pending deliveries", () => {
  test("after a restart every event is delivered (at-least-once, nothing lost), resuming within 2 s of readiness; only the sends in flight are sent twice", async () => {
    await killWithSendsInFlight("restart");
  }, 90_000);

  test("another server on the same data takes the killed one's deliveries over within 2 s (its leases no longer hold the endpoint's cap); only the sends in flight are sent twice", async () => {
    await killWithSendsInFlight("survivor");
  }, 90_000);
});
