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
      const url = new URL(request.url);
      if (url.pathname === "/hang") return new Promise<Response>(() => {});
      // /hop/N redirects N more times on the same host, then lands on /landed.
      const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
      if (hop) {
        const left = Number(hop[1]);
        const next = left > 1 ? `/hop/${left - 1}` : "/landed";
        return new Response(null, { status: 307, headers: { location: next } });
      }
      if (url.pathname === "/away")
        return new Response(null, {
          status: 302,
          headers: { location: `https://127.0.0.1:${server.port}/landed?secret=1` },
        });
      if (url.pathname === "/plain")
        return new Response(null, {
          status: 301,
          headers: { location: `http://localhost:${server.port}/landed` },
        });
      return Response.json({ ok: true, method: request.method, path: url.pathname });
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
    expect(JSON.parse(response.text)).toEqual({ ok: true, method: "GET", path: "/x" });
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

describe("redirects and messages", () => {
  test("a redirect is not followed unless the caller asks for it", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: true });
    const response = await http.request({ method: "POST", url: `${base}/hop/1`, body: "" });
    expect(response.status).toBe(307);
  });

  test("redirects to the same host over https are followed, each hop through the address guard", async () => {
    const resolved: string[] = [];
    const http = createProviderHttp({
      caFile: pki.caFile,
      allowPrivate: true,
      resolve: async (host) => {
        resolved.push(host);
        return ["127.0.0.1"];
      },
    });
    const response = await http.request({
      method: "POST",
      url: `${base}/hop/2`,
      body: "",
      userSupplied: true,
      sameHostRedirects: 3,
    });
    expect(JSON.parse(response.text)).toEqual({ ok: true, method: "POST", path: "/landed" });
    // Three requests (two redirects), three guarded look-ups of the address actually dialled.
    expect(resolved).toEqual(["localhost", "localhost", "localhost"]);
    const guarded = createProviderHttp({ caFile: pki.caFile, allowPrivate: false });
    const refused = await failure(
      guarded.request({
        method: "GET",
        url: `https://127.0.0.1:${server.port}/hop/1`,
        userSupplied: true,
        sameHostRedirects: 3,
      }),
    );
    expect(refused.message).toContain("loopback");
  });

  test("a redirect to another host or to plain http is refused, and too many hops stop", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: true });
    const away = await failure(
      http.request({ method: "GET", url: `${base}/away`, sameHostRedirects: 3 }),
    );
    expect(away.message).toContain("only redirects to the same host");
    expect(away.message).not.toContain("secret");
    expect(away.message).not.toContain("/landed");
    const plain = await failure(
      http.request({ method: "GET", url: `${base}/plain`, sameHostRedirects: 3 }),
    );
    expect(plain.message).toContain("same host over https");
    const loop = await failure(
      http.request({ method: "GET", url: `${base}/hop/5`, sameHostRedirects: 3 }),
    );
    expect(loop.message).toContain("too many");
  });

  test("error messages name a URL by scheme and host only, never its path or query", async () => {
    const http = createProviderHttp({ caFile: pki.caFile, allowPrivate: false });
    const token = "unclaimed-token-3f9a";
    const refused = await failure(
      http.request({
        method: "POST",
        url: `https://127.0.0.1:${server.port}/simplefin/claim/${token}?q=${token}`,
        userSupplied: true,
      }),
    );
    expect(refused.message).toContain(`https://127.0.0.1:${server.port}`);
    expect(refused.message).not.toContain(token);
    expect(refused.message).not.toContain("/simplefin");
    const slow = createProviderHttp({ caFile: pki.caFile, allowPrivate: true, timeoutMs: 200 });
    const timedOut = await failure(slow.request({ method: "GET", url: `${base}/hang?${token}` }));
    expect(timedOut.message).not.toContain(token);
    expect(timedOut.message).not.toContain("/hang");
  });
});

function failure(promise: Promise<unknown>): Promise<ProviderError> {
  return rejectionOf(promise, ProviderError);
}
