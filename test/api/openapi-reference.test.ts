// The reference's examples and webhooks section: every operation has examples, every
// example matches its schema, every documented error example is what the server really answers,
// and the webhook examples are signed so a reader can check them with the example secret.

import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { exampleEventId } from "../../src/api/reference/examples.ts";
import { exampleSigningSecret } from "../../src/api/reference/openapi-webhooks.ts";
import { encodeCursor } from "../../src/api/shared/cursor.ts";
import { exampleIds } from "../../src/api/shared/examples.ts";
import { eventTypes } from "../../src/db/schema.ts";
import { createApiKey, revokeApiKey } from "../../src/keys/api-keys.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { type ApiHarness, startApiHarness } from "../support/api.ts";
import { insertBankAccount } from "../support/bank-fixtures.ts";
import { expectedSignature, schemaChecker } from "../support/openapi-schemas.ts";
import { makeTempDir } from "../support/temp.ts";

type Json = Record<string, unknown>;
interface NamedExample {
  summary: string;
  value: unknown;
}
interface ErrorExample {
  summary: string;
  value: { error: { code: string; message: string } };
}

const api = await startApiHarness({ config: { apiRateLimitPerMinute: 1000 } });
afterAll(() => api.stop());
const tenant = await api.addTenant("reference@example.com");
const [tenantEvent] = await api.services.db.write((tx) =>
  recordAccountEvents(tx, api.clock, [
    {
      serviceAccountId: tenant.accountId,
      type: "account.transactions.available",
      data: {
        account_id: tenant.bank.accountIds[0] as string,
        fetched_at: api.clock.now().toISOString(),
        new_count: 1,
      },
    },
  ]),
);
const tenantEventId = String(tenantEvent?.eventId);
const document = (await (await api.get("/v1/openapi.json", null)).json()) as Json;
const schemas = schemaChecker(document);
const paths = document.paths as Record<string, Record<string, Json>>;
const operations = Object.entries(paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
);

/** The value at `keys` under `value` (the document is plain JSON). */
function dig<T>(value: unknown, ...keys: string[]): T {
  let current = value;
  for (const key of keys) current = (current as Record<string, unknown> | undefined)?.[key];
  return current as T;
}

function mediaExamples(operation: Json, status: string): Record<string, NamedExample> {
  const responses = operation.responses as Record<string, Json>;
  const media = (responses[status]?.content as Record<string, Json> | undefined)?.[
    "application/json"
  ];
  return (media?.examples ?? {}) as Record<string, NamedExample>;
}

describe("examples on every operation", () => {
  test("every parameter has an example valid for its schema, except those naming the reader's own state (cursor, If-None-Match, last event id), which have none", () => {
    for (const { path, method, operation } of operations) {
      const parameters = (operation.parameters ?? []) as Json[];
      parameters.forEach((parameter, index) => {
        // Values that name something of the reader's own (a page, an answer, the last event
        // received): an example would be pasted into generated samples and answered 400.
        if (
          ["cursor", "If-None-Match", "last_event_id", "last-event-id"].includes(
            String(parameter.name),
          )
        ) {
          expect(parameter.example).toBeUndefined();
          expect((parameter.schema as Json).example).toBeUndefined();
          return;
        }
        expect({ path, name: parameter.name, has: "example" in parameter }).toEqual({
          path,
          name: parameter.name,
          has: true,
        });
        const pointer = ["paths", path, method, "parameters", String(index), "schema"];
        // Query values travel as strings; the document types limit as an integer.
        const value =
          parameter.name === "limit" ? Number(parameter.example) : (parameter.example as unknown);
        schemas.check(pointer, value);
      });
    }
  });

  test("every response status has at least one example, and each one validates against the documented schema", () => {
    let checked = 0;
    for (const { path, method, operation } of operations) {
      for (const status of Object.keys(operation.responses as Json)) {
        // A response without a JSON body (a 304, say) has nothing to show.
        if (!dig(operation, "responses", status, "content", "application/json")) continue;
        const examples = Object.entries(mediaExamples(operation, status));
        expect({ path, status, count: examples.length > 0 }).toEqual({ path, status, count: true });
        for (const [, example] of examples) {
          schemas.check(
            ["paths", path, method, "responses", status, "content", "application/json", "schema"],
            example.value,
          );
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(operations.length * 6);
  });

  test("the error examples' code matches the status they are documented under, one example per code at least", () => {
    for (const { path, operation } of operations) {
      for (const status of ["400", "401", "403", "404", "429", "500"]) {
        const responses = operation.responses as Record<string, Json>;
        if (!responses[status]) continue;
        const documentedCodes = dig<string[]>(
          responses[status],
          "content",
          "application/json",
          "schema",
          "properties",
          "error",
          "properties",
          "code",
          "enum",
        );
        const exampleCodes = Object.values(mediaExamples(operation, status)).map(
          (example) => (example as ErrorExample).value.error.code,
        );
        expect({ path, status, codes: [...new Set(exampleCodes)].sort() }).toEqual({
          path,
          status,
          codes: [...documentedCodes].sort(),
        });
      }
    }
  });
});

describe("the TypeScript samples (x-codeSamples)", () => {
  test("every operation has one, and it runs as written against a real server, its body matching the 200 schema", async () => {
    const dir = makeTempDir("svc-ts-samples");
    for (const { path, method, operation } of operations) {
      const samples = operation["x-codeSamples"] as {
        lang: string;
        label: string;
        source: string;
      }[];
      expect(samples.map((s) => [s.lang, s.label])).toEqual([["typescript", "TypeScript"]]);
      if (operation.operationId === "streamEvents") {
        // It reads until the server stops, so it is not run here; the stream itself is proven
        // by test/api/events.test.ts and svc listen's end-to-end test.
        expect(samples[0]?.source).toContain("/v1/events/stream");
        expect(samples[0]?.source).toContain("text/event-stream");
        continue;
      }
      // The documented example ids name nothing in this database: the reader's own ids go there.
      const source = String(samples[0]?.source)
        .replaceAll(exampleIds.account, tenant.bank.accountIds[0] as string)
        .replaceAll(exampleIds.connection, tenant.bank.connectionId)
        .replaceAll(exampleEventId, tenantEventId);
      const file = join(dir, `${String(operation.operationId)}.ts`);
      writeFileSync(file, `${source}\nconsole.log(JSON.stringify(body));\nexport {};\n`);
      // Spawned, not spawnSync: the server answering the sample runs in this process.
      const child = Bun.spawn([process.execPath, file], {
        env: {
          SVC_BASE_URL: api.server.baseUrl,
          SVC_API_KEY: tenant.key,
          PATH: process.env.PATH ?? "",
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      expect({ path, code, stderr }).toEqual({ path, code: 0, stderr: "" });
      schemas.check(
        ["paths", path, method, "responses", "200", "content", "application/json", "schema"],
        JSON.parse(stdout),
      );
    }
  }, 60_000);
});

describe("documented error examples are what the server answers", () => {
  const unknownKey = `svk_AAAAAAAA_${"A".repeat(43)}`;
  const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  const timePattern = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;
  const normalise = (message: string, digits = false) => {
    const text = message
      .replace(uuidPattern, "<id>")
      .replace(timePattern, "<time>")
      .replace(/req_[A-Za-z0-9_-]+/g, "<request id>");
    return digits ? text.replace(/\d+/g, "<n>") : text;
  };

  async function answerOf(response: Response) {
    const body = (await response.json()) as ErrorExample["value"];
    return body.error;
  }

  function concrete(
    template: string,
    ids: { account: string; connection: string; event?: string },
  ): string {
    const path = template
      .replace("{account_id}", ids.account)
      .replace("{connection_id}", ids.connection)
      .replace("{event_id}", ids.event ?? tenantEventId);
    return `/v1${path}`;
  }

  async function withFlags<T>(
    flags: Parameters<typeof updateServiceAccount>[3],
    work: () => Promise<T>,
  ): Promise<T> {
    await updateServiceAccount(api.services.db, api.clock, tenant.accountId, flags);
    try {
      return await work();
    } finally {
      await updateServiceAccount(api.services.db, api.clock, tenant.accountId, {
        disabled: false,
        demo: false,
        connectEnabled: true,
        status: "sandbox",
        subscriptionStatus: "none",
      });
    }
  }

  test("every 400, 401, 403 and 404 example of every operation, reproduced with a real request", async () => {
    const revoked = await createApiKey(api.services.db, api.clock, {
      serviceAccountId: tenant.accountId,
      name: "revoked",
    });
    await revokeApiKey(api.services.db, api.clock, revoked.apiKey.id);
    const noBalance = await insertBankAccount(api.services.db, api.clock, {
      serviceAccountId: tenant.accountId,
      connectionId: tenant.bank.connectionId,
    });
    const own = {
      account: tenant.bank.accountIds[0] as string,
      connection: tenant.bank.connectionId,
    };
    const missing = {
      account: exampleIds.account,
      connection: exampleIds.connection,
      event: exampleEventId,
    };
    const isTransactions = (p: string) => p.endsWith("/transactions");
    const requests: Record<string, (template: string) => Promise<Response>> = {
      not_authenticated: (t) => api.get(concrete(t, own), null),
      invalid_api_key: (t) => api.get(concrete(t, own), unknownKey),
      not_bearer: (t) => api.get(concrete(t, own), null, { Authorization: "Basic dXNlcjpwYXNz" }),
      malformed_api_key: (t) => api.get(concrete(t, own), "svk_x"),
      revoked_api_key: (t) => api.get(concrete(t, own), revoked.key),
      user_inactive: (t) =>
        withFlags({ disabled: true }, () => api.get(concrete(t, own), tenant.key)),
      demo_account: (t) => withFlags({ demo: true }, () => api.get(concrete(t, own), tenant.key)),
      connect_not_available: (t) =>
        withFlags({ connectEnabled: false }, () => api.get(concrete(t, own), tenant.key)),
      subscription_lapsed: (t) =>
        withFlags({ status: "lapsed", subscriptionStatus: "canceled" }, () =>
          api.get(concrete(t, own), tenant.key),
        ),
      bad_id: (t) =>
        api.get(
          concrete(t, { account: "acc_123", connection: "con_123", event: "evt_123" }),
          tenant.key,
        ),
      bad_type: (t) => api.get(`${concrete(t, own)}?type=account.created`, tenant.key),
      bad_created_after: (t) =>
        api.get(`${concrete(t, own)}?created_after=2026-01-15T09:00:00`, tenant.key),
      bad_last_event_id: (t) => api.get(concrete(t, own), tenant.key, { "Last-Event-ID": "42" }),
      bad_limit: (t) => api.get(`${concrete(t, own)}?limit=0`, tenant.key),
      unknown_parameter: (t) =>
        api.get(
          `${concrete(t, own)}?${isTransactions(t) ? "include_pendng=true" : "page=2"}`,
          tenant.key,
        ),
      bad_cursor: (t) => api.get(`${concrete(t, own)}?cursor=%21`, tenant.key),
      cursor_expired: (t) => {
        const old = encodeCursor({ v: 1, k: "changes", p: "c", account: own.account, at: 0, s: 0 });
        return api.get(`${concrete(t, own)}?cursor=${old}`, tenant.key);
      },
      bad_date: (t) => api.get(`${concrete(t, own)}?from=15.01.2026`, tenant.key),
      window_too_long: (t) =>
        api.get(`${concrete(t, own)}?from=2023-01-01&to=2026-01-15`, tenant.key),
      not_found: (t) => api.get(concrete(t, missing), tenant.key),
      no_balance_yet: (t) =>
        api.get(concrete(t, { account: noBalance, connection: own.connection }), tenant.key),
    };
    let compared = 0;
    for (const { path, operation } of operations) {
      for (const status of ["400", "401", "403", "404"]) {
        for (const [name, example] of Object.entries(mediaExamples(operation, status))) {
          const send = requests[name];
          if (!send) throw new Error(`no request reproduces the example ${name} of ${path}`);
          const response = await send(path);
          const real = await answerOf(response);
          const documented = (example as ErrorExample).value.error;
          expect({ path, name, status: String(response.status), code: real.code }).toEqual({
            path,
            name,
            status,
            code: documented.code,
          });
          expect(normalise(real.message)).toBe(normalise(documented.message));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(operations.length * 8);
  });

  async function documentedExample(harness: ApiHarness, status: string, name: string) {
    const served = (await (await harness.get("/v1/openapi.json", null)).json()) as Json;
    const operation = (served.paths as Record<string, Record<string, Json>>)["/accounts"]
      ?.get as Json;
    return (mediaExamples(operation, status)[name] as ErrorExample).value.error;
  }

  test("the 429 example is the real rate-limit answer (limit and seconds aside)", async () => {
    const limited = await startApiHarness({ config: { apiRateLimitPerMinute: 1 } });
    try {
      const other = await limited.addTenant("limited-reference@example.com");
      await limited.get("/v1/accounts", other.key);
      const response = await limited.get("/v1/accounts", other.key);
      expect(response.status).toBe(429);
      const real = await answerOf(response);
      const documented = await documentedExample(limited, "429", "rate_limited");
      expect(real.code).toBe(documented.code);
      expect(documented.message).toContain("at most 1 a minute");
      expect(normalise(real.message, true)).toBe(normalise(documented.message, true));
    } finally {
      await limited.stop();
    }
    // A fresh database per harness: slow on a busy PostgreSQL.
  }, 30_000);

  test("the 500 example is the real internal_error answer (request id aside)", async () => {
    const broken = await startApiHarness();
    const other = await broken.addTenant("broken-reference@example.com");
    const documented = await documentedExample(broken, "500", "internal_error");
    await broken.services.database.close();
    try {
      const response = await broken.get("/v1/accounts", other.key);
      expect(response.status).toBe(500);
      const real = await answerOf(response);
      expect(real.code).toBe(documented.code);
      expect(normalise(real.message)).toBe(normalise(documented.message));
    } finally {
      await broken.stop();
    }
  }, 30_000);
});

describe("the webhooks section", () => {
  const webhooks = document.webhooks as Record<string, { post: Json }>;

  test("documents exactly the five event types, each without bearer auth, with 2XX and default responses", () => {
    expect(Object.keys(webhooks).sort()).toEqual([...eventTypes].sort());
    for (const webhook of Object.values(webhooks)) {
      expect(webhook.post.security).toEqual([]);
      expect(Object.keys(webhook.post.responses as Json).sort()).toEqual(["2XX", "default"]);
    }
  });

  test("each webhook documents Content-Type, User-Agent and the three signature headers as required", () => {
    for (const webhook of Object.values(webhooks)) {
      const body = webhook.post.requestBody as { required: boolean; content: Json };
      expect(body.required).toBe(true);
      expect(Object.keys(body.content)).toEqual(["application/json"]);
      const headers = (webhook.post.parameters as Json[]).map((p) => [p.name, p.in, p.required]);
      expect(headers).toEqual([
        ["User-Agent", "header", true],
        ["Svc-Webhook-Id", "header", true],
        ["Svc-Webhook-Timestamp", "header", true],
        ["Svc-Webhook-Signature", "header", true],
      ]);
    }
  });

  test("each example body and its headers validate against the documented schemas, and the signature verifies with the example secret", () => {
    for (const [type, webhook] of Object.entries(webhooks)) {
      const content = (webhook.post.requestBody as { content: Record<string, Json> }).content[
        "application/json"
      ] as Json;
      const example = (content.examples as Record<string, NamedExample>).signed?.value as Json;
      expect(example.type).toBe(type);
      schemas.check(
        ["webhooks", type, "post", "requestBody", "content", "application/json", "schema"],
        example,
      );
      const parameters = webhook.post.parameters as Json[];
      const header = (name: string) =>
        String(parameters.find((p) => p.name === name)?.example ?? "");
      parameters.forEach((parameter, index) => {
        schemas.check(
          ["webhooks", type, "post", "parameters", String(index), "schema"],
          parameter.example,
        );
      });
      expect(header("Svc-Webhook-Id")).toBe(example.id as string);
      // The raw body bytes are published in the description; a reader signs exactly those.
      const description = String(webhook.post.description);
      expect(description).toContain(exampleSigningSecret);
      const rawBody = /exactly these body bytes:\n\n`([^`]+)`/.exec(description)?.[1] as string;
      expect(JSON.parse(rawBody)).toEqual(example);
      expect(rawBody).not.toContain(" ");
      expect(header("Svc-Webhook-Signature")).toBe(
        expectedSignature(exampleSigningSecret, header("Svc-Webhook-Timestamp"), rawBody),
      );
    }
  });

  test("the envelope schemas are strict: an extra field, a wrong type or a missing data field fails", () => {
    const pointer = (type: string) => [
      "webhooks",
      type,
      "post",
      "requestBody",
      "content",
      "application/json",
      "schema",
    ];
    const example = (type: string) =>
      structuredClone(
        dig(
          webhooks[type],
          "post",
          "requestBody",
          "content",
          "application/json",
          "examples",
          "signed",
          "value",
        ),
      ) as Json;
    const withAmount = example("account.balance.updated");
    (withAmount.data as Json).amount = "12.00";
    expect(schemas.valid(pointer("account.balance.updated"), withAmount)).toBe(false);
    const wrongType = example("webhook.test");
    wrongType.type = "account.balance.updated";
    expect(schemas.valid(pointer("webhook.test"), wrongType)).toBe(false);
    const missing = example("account.transactions.available");
    delete (missing.data as Json).new_count;
    expect(schemas.valid(pointer("account.transactions.available"), missing)).toBe(false);
  });
});
