// Registration URL rules and the SSRF guard (spec 2, 4 "Requirements on a registered
// endpoint", 7: every address form that reaches inside is refused).
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/core/errors.ts";
import { checkAddress } from "../../src/net/address-guard.ts";
import type { Resolver } from "../../src/net/resolver.ts";
import { parseEndpointUrl, validateEndpointUrl } from "../../src/webhooks/endpoints/url.ts";

const strict = { allowPrivate: false };

/** A resolver that must not be asked (IP literals are never looked up). */
const noLookup: Resolver = async (host) => {
  throw new Error(`unexpected lookup of ${host}`);
};
const answering =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;

async function refusal(url: string, resolve: Resolver = noLookup): Promise<string> {
  try {
    await validateEndpointUrl(url, resolve, strict);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("invalid_url");
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
  throw new Error(`${url} was accepted`);
}

// [url, what the message must say]
const literalForms: [string, RegExp][] = [
  ["https://127.0.0.1/", /loopback/],
  ["https://2130706433/", /127\.0\.0\.1 is a loopback/], // decimal
  ["https://0177.0.0.1/", /127\.0\.0\.1 is a loopback/], // octal
  ["https://0x7f.0.0.1/", /127\.0\.0\.1 is a loopback/], // hex octet
  ["https://0x7f000001/", /127\.0\.0\.1 is a loopback/], // hex whole
  ["https://017700000001/", /127\.0\.0\.1 is a loopback/], // octal whole
  ["https://127.1/", /127\.0\.0\.1 is a loopback/], // short
  ["https://127.0.1/", /127\.0\.0\.1 is a loopback/], // short
  ["https://127.255.255.254/", /loopback/],
  ["https://10.0.0.1/", /private-network/],
  ["https://0xa.1/", /10\.0\.0\.1 is a private-network/],
  ["https://172.16.0.1/", /private-network/],
  ["https://172.31.255.255/", /private-network/],
  ["https://192.168.1.1/", /private-network/],
  ["https://3232235777/", /192\.168\.1\.1 is a private-network/],
  ["https://169.254.169.254/", /link-local.*metadata/],
  ["https://0xa9fea9fe/", /169\.254\.169\.254 is a link-local/],
  ["https://169.254.0.1/", /link-local/],
  ["https://100.64.0.1/", /carrier-grade NAT/],
  ["https://100.127.255.254/", /carrier-grade NAT/],
  ["https://224.0.0.1/", /multicast/],
  ["https://239.255.255.250/", /multicast/],
  ["https://255.255.255.255/", /broadcast/],
  ["https://0.0.0.0/", /unspecified/],
  ["https://0/", /0\.0\.0\.0 is an unspecified/],
  ["https://240.0.0.1/", /reserved/],
  ["https://192.0.2.1/", /reserved/],
  ["https://198.51.100.7/", /reserved/],
  ["https://203.0.113.7/", /reserved/],
  ["https://198.18.0.1/", /reserved/],
  ["https://192.0.0.8/", /reserved/],
  ["https://[::1]/", /loopback/],
  ["https://[::]/", /unspecified/],
  ["https://[::ffff:127.0.0.1]/", /IPv4-mapped form of 127\.0\.0\.1.*loopback/],
  ["https://[::ffff:7f00:1]/", /IPv4-mapped form of 127\.0\.0\.1/],
  ["https://[::ffff:169.254.169.254]/", /IPv4-mapped.*link-local/],
  ["https://[::ffff:10.0.0.1]/", /IPv4-mapped.*private/],
  ["https://[::ffff:0:7f00:1]/", /IPv4-translated form of 127\.0\.0\.1/],
  ["https://[::127.0.0.1]/", /IPv4-compatible/],
  ["https://[64:ff9b::127.0.0.1]/", /NAT64 form of 127\.0\.0\.1/],
  ["https://[64:ff9b::a9fe:a9fe]/", /NAT64 form of 169\.254\.169\.254/],
  ["https://[64:ff9b:1::a00:1]/", /local-use NAT64/],
  ["https://[2002:7f00:1::]/", /6to4 form of 127\.0\.0\.1/],
  ["https://[2002:a9fe:a9fe::1]/", /6to4 form of 169\.254\.169\.254/],
  ["https://[2002:c0a8:101::1]/", /6to4 form of 192\.168\.1\.1/],
  // Teredo (2001::/32) is refused as a class, whatever the relay and client inside it.
  ["https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", /Teredo tunnel address/],
  ["https://[2001:0:a00:1::1]/", /Teredo tunnel address/],
  ["https://[fe80::1]/", /link-local/],
  ["https://[fc00::1]/", /unique local/],
  ["https://[fd12:3456::1]/", /unique local/],
  ["https://[ff02::1]/", /multicast/],
  ["https://[2001:db8::1]/", /reserved or documentation/],
  ["https://[fec0::1]/", /site-local/],
  ["https://[100::1]/", /discard/],
];

describe("SSRF guard: address literals that reach inside are refused at registration", () => {
  test("the table holds at least 40 forms", () => {
    expect(literalForms.length).toBeGreaterThanOrEqual(40);
  });
  test.each(literalForms)("%s is refused", async (url, message) => {
    expect(await refusal(url)).toMatch(message);
  });
});

describe("SSRF guard: names are resolved and every address must be public", () => {
  test.each([
    ["127.0.0.1", /loopback/],
    ["10.0.0.5", /private-network/],
    ["169.254.169.254", /link-local/],
    ["::ffff:192.168.0.1", /IPv4-mapped.*private/],
    ["fd00::5", /unique local/],
    ["100.100.100.100", /carrier-grade NAT/],
  ])("a name resolving to %s is refused", async (address, message) => {
    const text = await refusal("https://hooks.example.com/in", answering(address));
    expect(text).toContain("hooks.example.com resolves to");
    expect(text).toMatch(message);
  });

  test("one private address among public ones is enough to refuse", async () => {
    expect(
      await refusal("https://hooks.example.com/", answering("93.184.216.34", "10.0.0.1")),
    ).toMatch(/10\.0\.0\.1/);
  });

  test("a name that does not resolve is refused with a clear message", async () => {
    const message = await refusal("https://nope.example.com/", async () => {
      throw new Error("ENOTFOUND");
    });
    expect(message).toContain("nope.example.com could not be resolved");
  });

  test("a single-label host (e.g. localhost) is not a public host name", async () => {
    expect(await refusal("https://localhost/")).toContain("not a public host name");
  });
});

describe("SSRF guard: public addresses pass, including public IPv4 carried in IPv6", () => {
  test.each([
    "93.184.216.34",
    "8.8.8.8",
    "2606:2800:220:1:248:1893:25c8:1946",
    "::ffff:93.184.216.34",
    "64:ff9b::5db8:d822",
    "2002:5db8:d822::1",
  ])("%s is allowed", (address) => {
    expect(checkAddress(address).allowed).toBe(true);
  });

  test("an IPv4-mapped public address is dialled as plain IPv4", () => {
    expect(checkAddress("::ffff:93.184.216.34")).toMatchObject({
      allowed: true,
      dialAddress: "93.184.216.34",
    });
    expect(checkAddress("2606:2800:220:1::1")).toMatchObject({ dialAddress: "2606:2800:220:1::1" });
  });

  test("a name resolving only to public addresses is accepted and normalised", async () => {
    const url = await validateEndpointUrl(
      "https://Hooks.Example.com:443/in?x=1",
      answering("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"),
      strict,
    );
    expect(url.href).toBe("https://hooks.example.com/in?x=1");
  });

  test("Teredo (2001::/32) is refused as a class even when the relay and client it carries are public", () => {
    // The audit's case: relay 93.184.216.34 (5db8:d822), client 8.8.8.8 stored inverted (f7f7:f7f7).
    for (const address of [
      "2001:0:5db8:d822::f7f7:f7f7",
      "2001:0:808:808:8000:1:f7f7:f7f7",
      "2001::1",
    ]) {
      const verdict = checkAddress(address);
      expect(verdict.allowed).toBe(false);
      expect(verdict.allowed === false && verdict.reason).toContain("Teredo tunnel address");
    }
    expect(checkAddress("2001:0:5db8:d822::f7f7:f7f7", { allowPrivate: true }).allowed).toBe(false);
    // Its neighbours outside 2001::/32 are ordinary public unicast.
    expect(checkAddress("2001:4860:4860::8888").allowed).toBe(true);
  });

  test("unsafeAllowPrivateTargets lets loopback and private targets through, but never multicast", () => {
    expect(checkAddress("127.0.0.1", { allowPrivate: true }).allowed).toBe(true);
    expect(checkAddress("10.0.0.1", { allowPrivate: true }).allowed).toBe(true);
    expect(checkAddress("::1", { allowPrivate: true }).allowed).toBe(true);
    expect(checkAddress("224.0.0.1", { allowPrivate: true }).allowed).toBe(false);
  });
});

describe("URL shape rules (spec 4: HTTPS on 443, no credentials)", () => {
  const shape =
    (url: string, allowPrivate = false) =>
    () =>
      parseEndpointUrl(url, { allowPrivate });
  test.each([
    ["http://hooks.example.com/", /must use https/],
    ["ftp://hooks.example.com/", /must use https/],
    ["https://hooks.example.com:8443/", /port 443; port 8443 is refused/],
    ["https://hooks.example.com:80/", /port 443/],
    ["https://user:pass@hooks.example.com/", /user name or password/],
    ["https://user@hooks.example.com/", /user name or password/],
    ["https://hooks.example.com/#frag", /fragment/],
    ["not a url", /not a valid absolute URL/],
    ["", /required/],
    [`https://hooks.example.com/${"a".repeat(2100)}`, /at most 2048/],
  ])("%s is refused", (url, message) => {
    expect(shape(url)).toThrow(message);
  });

  test("an explicit :443 is allowed (it is the standard port)", () => {
    expect(parseEndpointUrl("https://hooks.example.com:443/x", strict).href).toBe(
      "https://hooks.example.com/x",
    );
  });

  test("unsafeAllowPrivateTargets allows any port, but still only HTTPS", () => {
    expect(parseEndpointUrl("https://127.0.0.1:8443/", { allowPrivate: true }).port).toBe("8443");
    expect(shape("http://127.0.0.1:8443/", true)).toThrow(/must use https/);
  });
});
