import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { ProviderError } from "../../../src/banking/providers/errors.ts";
import { createProviderHttp } from "../../../src/banking/providers/http.ts";
import { createTestPki, loopbackNames, type TestPki } from "../../support/pki.ts";
import { rejectionOf } from "../../support/rejection.ts";

let pki: TestPki;
let server: Server<undefined>;
let base: string;
const seen: { authorization: string | null }[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  const cert = await pki.issue(loopbackNames);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
    fetch(request) {
      seen.push({ authorization: request.headers.get("authorization") });
      if (new URL(request.url).pathname === "/hang") return new Promise<Response>(() => {});
      return Response.json({ ok: true });
    },
  });
  base = `https://localhost:${server.port}`;
});
afterAll(() => server.stop(true));

describe("provider HTTP client", () => {
  test("a peer whose CA is in providerCaFile is trusted", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: false });
    const response = await http.request({ method: "GET", url: `${base}/x` });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ ok: true });
  });

  test("without the CA file the peer's certificate is refused (TLS verified)", async () => {
    const http = createProviderHttp({ allowPrivate: false });
    const error = await failure(http.request({ method: "GET", url: `${base}/x` }));
    expect(error.kind).toBe("unavailable");
  });

  test("plain http is refused before any connection", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: true });
    const error = await failure(
      http.request({ method: "GET", url: `http://localhost:${server.port}/` }),
    );
    expect(error.kind).toBe("bad_config");
    expect(error.message).toContain("https");
  });

  test("a user-supplied URL to a loopback address is refused unless private targets are allowed", async () => {
    const guarded = createProviderHttp({ caFile: pki.caFile, allowPrivate: false });
    const error = await failure(
      guarded.request({
        method: "GET",
        url: `https://127.0.0.1:${server.port}/`,
        userSupplied: true,
      }),
    );
    expect(error.kind).toBe("bad_config");
    expect(error.message).toContain("loopback");
    const lifted = createProviderHttp({ caFile: pki.caFile, allowPrivate: true });
    const ok = await lifted.request({
      method: "GET",
      url: `https://127.0.0.1:${server.port}/`,
      userSupplied: true,
    });
    expect(ok.status).toBe(200);
  });

  test("credentials in the URL travel as Basic auth and never appear in messages", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: true });
    seen.length = 0;
    await http.request({ method: "GET", url: `https://user:s3cret@localhost:${server.port}/a` });
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from("user:s3cret").toString("base64")}`);
    const error = await failure(
      http.request({ method: "GET", url: `http://user:s3cret@localhost:${server.port}/a` }),
    );
    expect(error.message).not.toContain("s3cret");
  });

  test("a peer that never answers fails as unavailable after the timeout", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: true, timeoutMs: 200 });
    const error = await failure(http.request({ method: "GET", url: `${base}/hang` }));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toContain("no answer");
  });
});

function failure(promise: Promise<unknown>): Promise<ProviderError> {
  return rejectionOf(promise, ProviderError);
}
