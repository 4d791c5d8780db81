// One naming: every command's --json uses the API's snake_case names, and an endpoint,
// a delivery and an API key have one shape in every command that prints them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { toJsonNames } from "../../src/core/json-names.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { runSvc } from "../support/cli.ts";
import { engineEnvFor } from "../support/engine.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

/** Every key in `value`, at any depth, with the path it was found at. */
function keysOf(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => keysOf(item, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) => [
    `${path}.${key}`,
    ...keysOf(item, `${path}.${key}`),
  ]);
}

function camelCaseKeys(value: unknown): string[] {
  return keysOf(value).filter((path) => /[a-z][A-Z]/.test(path.split(".").at(-1) ?? ""));
}

describe("toJsonNames", () => {
  test("spells camelCase keys in snake_case at any depth and leaves values, dates and other keys alone", () => {
    expect(
      toJsonNames({
        endpointId: "x",
        attempts: [{ statusCode: 200, errorClass: null }],
        tables: { bank_accounts: 1, "account.balance.updated": 2 },
        at: new Date("2026-01-15T09:00:00.000Z"),
        note: "keepCamelInValues",
      }),
    ).toEqual({
      endpoint_id: "x",
      attempts: [{ status_code: 200, error_class: null }],
      tables: { bank_accounts: 1, "account.balance.updated": 2 },
      at: new Date("2026-01-15T09:00:00.000Z"),
      note: "keepCamelInValues",
    });
  });
});

let receiver: Receiver;
let cwd: string;
let env: Record<string, string>;
const clock = createFakeClock();

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  receiver = startReceiver(cert);
  cwd = makeTempDir("svc-cli-json-names");
  env = { SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true", SVC_DELIVERY_CA_FILE: pki.caFile };
});
afterAll(() => receiver.stop());

describe("svc --json", () => {
  test("every command answers snake_case, and an endpoint, a delivery and a key have one shape everywhere", async () => {
    const outputs = new Map<string, unknown>();
    const svc = async (...argv: string[]) => {
      const run = await runSvc([...argv, "--json"], { cwd, env, clock });
      // stderr may carry log lines (JSON logs are not --json output); the answer is on stdout.
      expect(`${argv.slice(0, 2).join(" ")}: ${run.code}`).toBe(`${argv.slice(0, 2).join(" ")}: 0`);
      const value = run.json<unknown>();
      outputs.set(argv.slice(0, 2).join(" "), value);
      return value as never;
    };
    const passwordFile = join(cwd, "password");
    writeFileSync(passwordFile, "correct horse battery staple\n", { mode: 0o600 });
    await svc(
      "setup",
      "--yes",
      "--base-url",
      "https://bank-api.example.com/",
      "--source-ip",
      "203.0.113.10",
      "--admin-email",
      "ops@example.com",
      "--admin-password-file",
      passwordFile,
    );
    await svc("migrate");
    const account: { id: string } = await svc("accounts", "create", "--email", "o@example.com");
    await svc("accounts", "update", account.id, "--demo", "true");
    await svc("accounts", "list");
    const key: Record<string, unknown> = await svc("keys", "create", "--account", account.id);
    const keys: Record<string, unknown>[] = await svc("keys", "list", "--account", account.id);
    const revoked: Record<string, unknown> = await svc("keys", "revoke", key.id as string);
    const connection: { id: string } = await svc(
      "sandbox",
      "connect",
      "--account",
      account.id,
      "--seed",
      "3",
    );
    await svc("sandbox", "set-status", "--connection", connection.id, "linked");
    await svc("sync");
    await svc("events", "list", "--account", account.id, "--limit", "2");
    await svc(
      "import",
      "--account",
      account.id,
      join(import.meta.dir, "../fixtures/import/valid.json"),
    );

    const added: { endpoint: Record<string, unknown>; signing_secret: string } = await svc(
      "endpoints",
      "add",
      "--account",
      account.id,
      "--url",
      receiver.url("/names"),
    );
    const id = added.endpoint.id as string;
    await svc("endpoints", "send-code", id);
    const verified: Record<string, unknown> = await svc(
      "endpoints",
      "verify",
      id,
      lastVerificationCode(receiver),
    );
    await svc("endpoints", "test", id);
    const rotated: { endpoint: Record<string, unknown> } = await svc(
      "endpoints",
      "rotate-secret",
      id,
    );
    await svc("endpoints", "pause", id);
    await svc("endpoints", "resume", id);
    const updated: Record<string, unknown> = await svc(
      "endpoints",
      "update",
      id,
      "--events",
      "account.balance.updated",
    );
    const listed: Record<string, unknown>[] = await svc(
      "endpoints",
      "list",
      "--account",
      account.id,
    );

    const services = await openServices(
      loadConfig({ env: await engineEnvFor(cwd), cwd, flags: { dataDir: join(cwd, "data") } }),
      { log: silentLogger, clock },
    );
    const event = await services.db.write((tx) =>
      recordAccountEvent(tx, clock, {
        serviceAccountId: account.id,
        type: "account.balance.updated",
        data: {
          account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
          fetched_at: clock.now().toISOString(),
        },
      }),
    );
    await services.database.close();
    const resent: Record<string, unknown> = await svc("endpoints", "resend", id, event.eventId);
    const retried: Record<string, unknown> = await svc("deliveries", "retry", resent.id as string);
    const log: Record<string, unknown>[] = await svc("deliveries", "list", "--endpoint", id);
    await svc("mail", "list");
    await svc("backup", join(cwd, "snapshot"));
    await svc("endpoints", "remove", id);

    for (const [command, value] of outputs) {
      expect(`${command}: ${camelCaseKeys(value).join(", ")}`).toBe(`${command}: `);
    }
    const shape = (value: Record<string, unknown>) => Object.keys(value).sort();
    // An endpoint.
    for (const endpoint of [verified, rotated.endpoint, updated, listed[0] as object]) {
      expect(shape(endpoint as Record<string, unknown>)).toEqual(shape(added.endpoint));
    }
    expect(updated.event_types).toEqual(["account.balance.updated"]);
    expect(shape(added.endpoint)).toContain("service_account_id");
    // A delivery.
    const fromLog = log.find((d) => d.id === resent.id) as Record<string, unknown>;
    expect(shape(resent)).toEqual(shape(fromLog));
    expect(shape(retried)).toEqual(shape(fromLog));
    expect(fromLog).toMatchObject({ manual: true, event_id: event.eventId, endpoint_id: id });
    // An API key: the same fields in create (plus the key itself), list and revoke.
    const { key: _secret, ...created } = key;
    expect(shape(created)).toEqual(shape(keys[0] as Record<string, unknown>));
    expect(shape(revoked)).toEqual(shape(created));
    expect(shape(revoked)).toContain("revoked_at");
  });

  test("an error with --json is the API's error body, snake_case, on stderr", async () => {
    const owner = await runSvc(["accounts", "create", "--email", "e@example.com", "--json"], {
      cwd,
      env,
    });
    const run = await runSvc(
      [
        "import",
        "--account",
        owner.json<{ id: string }>().id,
        join(import.meta.dir, "../fixtures/import/invalid.json"),
        "--json",
      ],
      { cwd, env, clock },
    );
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stderr) as { error: { code: string; problems?: unknown[] } };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.problems?.[1]).toMatchObject({ record_id: "bad-amount" });
    expect(camelCaseKeys(body)).toEqual([]);
  });
});
