import { describe, expect, test } from "bun:test";
import { ApiError, errorStatus } from "../../src/core/errors.ts";
import { createLogger } from "../../src/log/log.ts";
import { createApp } from "../../src/server/app.ts";
import { createTestServices } from "../support/services.ts";

describe("one error model", () => {
  test("every error code maps to its HTTP status as spec section 7 says", () => {
    expect(errorStatus.not_authenticated).toBe(401);
    expect(errorStatus.invalid_api_key).toBe(401);
    expect(errorStatus.user_inactive).toBe(401);
    expect(errorStatus.subscription_lapsed).toBe(403);
    expect(errorStatus.demo_account).toBe(403);
    expect(errorStatus.connect_not_available).toBe(403);
    expect(new ApiError("rate_limited", "slow down").status).toBe(429);
  });

  test("an unknown route answers 404 in the envelope with a request id", async () => {
    const app = createApp(await createTestServices());
    const response = await app.request("/no/such/route");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: "not_found", message: "No route for GET /no/such/route." },
    });
    expect(response.headers.get("Svc-Request-Id")).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
  });

  test("a 500 never leaks internals; it logs them with the request id", async () => {
    const lines: string[] = [];
    const services = await createTestServices({
      log: createLogger({ write: (line) => lines.push(line) }),
    });
    const app = createApp(services);
    app.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    const response = await app.request("/boom");
    const requestId = response.headers.get("Svc-Request-Id");
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(500);
    expect(body.error.code).toBe("internal_error");
    expect(body.error.message).not.toContain("hunter2");
    expect(body.error.message).toContain(requestId ?? "missing");
    const logged = lines
      .map((line) => JSON.parse(line))
      .find((record) => record.msg === "unhandled error");
    expect(logged.requestId).toBe(requestId);
    expect(JSON.stringify(logged)).toContain("hunter2");
  });

  test("a 401 carries WWW-Authenticate: Bearer", async () => {
    const app = createApp(await createTestServices());
    app.get("/guarded", () => {
      throw new ApiError("not_authenticated", "no key");
    });
    const response = await app.request("/guarded");
    expect(response.headers.get("WWW-Authenticate")).toStartWith("Bearer");
  });

  test("/healthz and /readyz answer while the database answers", async () => {
    const services = await createTestServices();
    const app = createApp(services);
    expect((await app.request("/healthz")).status).toBe(200);
    expect((await app.request("/readyz")).status).toBe(200);
    await services.database.close();
    expect((await app.request("/readyz")).status).toBe(503);
  });
});

describe("readiness", () => {
  test("/readyz answers 503 while start-up has not finished, /healthz answers anyway", async () => {
    let ready = false;
    const app = createApp(await createTestServices(), { isReady: () => ready });
    expect((await app.request("/healthz")).status).toBe(200);
    const starting = await app.request("/readyz");
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({
      status: "unavailable",
      reason: "starting or stopping",
    });
    ready = true;
    expect((await app.request("/readyz")).status).toBe(200);
  });
});
