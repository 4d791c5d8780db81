// Backup and restore end to end with the compiled binary (operator guide
// "Backup and restore"): back up while the server runs, check the backup, restore it into a fresh
// data dir (and, on PostgreSQL, a fresh database), serve from it: the API gives the same
// answers, and deliveries are still signed with the endpoint's original secret.
import { describe, expect, test } from "bun:test";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { compiledBinary, runBinary, startBinary } from "../support/binary.ts";
import { createTestDatabase, registerEngineEnv, testEngine } from "../support/engine.ts";
import { startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

describe("backup, wipe, restore, serve (compiled binary)", () => {
  test("the restored instance answers the API the same and its deliveries verify with the original signing secret", async () => {
    const binary = await compiledBinary();
    const { pki, cert } = await testCertificates();
    const env = {
      SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      SVC_DELIVERY_CA_FILE: pki.caFile,
      SVC_LOG_LEVEL: "warn",
    };
    const receiver = startReceiver(cert);
    const original = makeTempDir("svc-backup-original");
    const svc = async (cwd: string, ...args: string[]) => {
      const run = await runBinary(binary, [...args, "--json"], cwd, env);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
      return JSON.parse(run.stdout);
    };
    try {
      // An instance with bank data, an API key and a verified endpoint.
      await svc(original, "migrate");
      const account = await svc(original, "accounts", "create", "--email", "b@example.com");
      await svc(original, "sandbox", "connect", "--account", account.id, "--seed", "7");
      await svc(original, "sync");
      const { key } = await svc(original, "keys", "create", "--account", account.id);
      const added = await svc(
        original,
        ...["endpoints", "add", "--account", account.id, "--url", receiver.url("/restored")],
      );
      const endpointId: string = added.endpoint.id;
      const signingSecret: string = added.signing_secret;
      expect(signingSecret).toStartWith("whsec_");
      await svc(original, "endpoints", "send-code", endpointId);
      await svc(original, "endpoints", "verify", endpointId, lastVerificationCode(receiver));

      const read = async (baseUrl: string) => {
        const get = async (path: string) => {
          const response = await fetch(`${baseUrl}/v1${path}`, {
            headers: { Authorization: `Bearer ${key}` },
          });
          expect(response.status).toBe(200);
          return response.json();
        };
        const accounts = await get("/accounts");
        const first = accounts.data[0].account_id;
        return {
          accounts,
          connections: await get("/connections"),
          balance: await get(`/accounts/${first}/balance`),
          transactions: await get(`/accounts/${first}/transactions?limit=50&include_pending=true`),
        };
      };

      // Backed up online, while the server runs; then checked.
      const server = await startBinary(binary, { cwd: original, env });
      let before: Awaited<ReturnType<typeof read>>;
      try {
        before = await read(server.baseUrl);
        expect(before.transactions.data.length).toBeGreaterThan(0);
        const written = await svc(original, "backup", join(original, "snap"));
        expect(written.check).toEqual({ integrity: "ok", master_key: "matches" });
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const snap = join(original, "snap");
      const checked = await svc(makeTempDir(), "backup", "--verify", snap);
      expect(checked.problems).toEqual([]);

      // Wipe the original, restore into a fresh data dir (and a fresh database on PostgreSQL).
      rmSync(join(original, "data"), { recursive: true, force: true });
      const restored = makeTempDir("svc-backup-restored");
      cpSync(snap, join(restored, "data"), { recursive: true });
      if (testEngine === "postgres") {
        const database = await createTestDatabase();
        const restore = Bun.spawnSync([
          "pg_restore",
          "--no-owner",
          `--dbname=${database.url}`,
          join(snap, "svc.pgdump"),
        ]);
        expect(restore.exitCode).toBe(0);
        registerEngineEnv(restored, { SVC_DATABASE_URL: database.url });
      }
      const again = await startBinary(binary, { cwd: restored, env });
      try {
        expect(await read(again.baseUrl)).toEqual(before);
        // The master key came back with the data: a delivery is signed with the original secret.
        const sent = receiver.requests.length;
        const tested = await svc(restored, "endpoints", "test", endpointId);
        expect(tested.status_code).toBe(200);
        const delivery = receiver.requests[sent];
        expect(JSON.parse(delivery?.body ?? "{}").type).toBe("webhook.test");
        expect(
          verifyWebhook({
            secret: signingSecret,
            headers: delivery?.headers ?? {},
            rawBody: delivery?.body ?? "",
            nowSeconds: Math.floor(Date.now() / 1000),
          }),
        ).toMatchObject({ ok: true });
      } finally {
        expect(await again.stop()).toBe(0);
      }
    } finally {
      await receiver.stop();
    }
  }, 120_000);
});
