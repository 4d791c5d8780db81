// Who the client is (src/http/client-address.ts): the TCP peer, unless the peer is a reverse
// proxy the operator trusts; then X-Forwarded-For, read right to left up to the first address
// that is not a trusted proxy. Driven over real loopback HTTP, so the peer is 127.0.0.1.
import { afterAll, describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { createClientAddressResolver } from "../../src/http/client-address.ts";

const servers: { stop(force?: boolean): Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop(true);
});

/** A server answering with the address the resolver finds; `ask` sends one X-Forwarded-For. */
function serverTrusting(trustedProxies: string[]) {
  const clientAddress = createClientAddressResolver(trustedProxies);
  const app = new Hono();
  app.get("/", (c) => c.text(clientAddress(c) ?? "(none)"));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  servers.push(server);
  return async (forwardedFor?: string) => {
    const headers: Record<string, string> = forwardedFor ? { "X-Forwarded-For": forwardedFor } : {};
    return (await fetch(server.url, { headers })).text();
  };
}

describe("the client address", () => {
  test("with no trusted proxy it is the TCP peer, and X-Forwarded-For is ignored", async () => {
    const ask = serverTrusting([]);
    expect(await ask()).toBe("127.0.0.1");
    expect(await ask("203.0.113.7")).toBe("127.0.0.1");
  });

  test("a peer that is not a trusted proxy is the client, whatever it forwards", async () => {
    const ask = serverTrusting(["10.0.0.0/8"]);
    expect(await ask("203.0.113.7")).toBe("127.0.0.1");
  });

  test("behind a trusted proxy it is the address the proxy forwarded", async () => {
    const ask = serverTrusting(["127.0.0.1/32"]);
    expect(await ask("203.0.113.7")).toBe("203.0.113.7");
    // No header: the proxy itself is all there is to go on.
    expect(await ask()).toBe("127.0.0.1");
  });

  test("through a chain of trusted proxies it is the first untrusted address from the right; entries a client wrote itself are ignored", async () => {
    const ask = serverTrusting(["127.0.0.0/8", "10.0.0.0/8"]);
    expect(await ask("198.51.100.1, 203.0.113.7, 10.1.2.3")).toBe("203.0.113.7");
    // Every hop trusted: the leftmost is as far as the chain goes.
    expect(await ask("10.9.9.9, 10.1.2.3")).toBe("10.9.9.9");
  });

  test("a malformed hop stops the walk at the last address that can be believed", async () => {
    const ask = serverTrusting(["127.0.0.1/32", "10.0.0.0/8"]);
    expect(await ask("203.0.113.7, not-an-address")).toBe("127.0.0.1");
    expect(await ask("203.0.113.7, unknown, 10.1.2.3")).toBe("10.1.2.3");
  });

  test("IPv6 clients, and IPv4-mapped IPv6 written as the IPv4 address", async () => {
    const ask = serverTrusting(["127.0.0.1/32"]);
    expect(await ask("2001:db8::1")).toBe("2001:db8::1");
    expect(await ask("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });
});
