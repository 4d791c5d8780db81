// The read API inside the compiled binary: keys made with its CLI, /v1 served by its server,
// the OpenAPI document and reference page generated in the bundled (minified) build.
import { expect, test } from "bun:test";
import { compiledBinary, runBinary, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";

async function svc(binary: string, args: string[], cwd: string) {
  const run = await runBinary(binary, [...args, "--json"], cwd);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

test("svc keys create/revoke against a running svc serve: the key reads /v1, then is refused at once", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-read-api");
  const server = await startBinary(binary, { cwd });
  try {
    const account = await svc(binary, ["accounts", "create", "--email", "api@example.com"], cwd);
    const created = await svc(binary, ["keys", "create", "--account", account.id], cwd);
    expect(created.key).toMatch(/^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
    const headers = { Authorization: `Bearer ${created.key}` };

    const accounts = await fetch(`${server.baseUrl}/v1/accounts`, { headers });
    expect(accounts.status).toBe(200);
    expect(await accounts.json()).toEqual({ data: [], next_cursor: null });

    const document = await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json();
    expect(Object.keys(document.paths)).toContain("/accounts/{account_id}/transactions");
    expect(document.components.schemas.Transaction.properties.amount.pattern).toBeDefined();
    const docs = await (await fetch(`${server.baseUrl}/v1/docs`)).text();
    // Rendered in the browser by the bundled Scalar (test/e2e/docs-binary.test.ts).
    expect(docs).toContain('<script id="api-reference"');

    await svc(binary, ["keys", "revoke", created.id], cwd);
    const refused = await fetch(`${server.baseUrl}/v1/accounts`, { headers });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);
