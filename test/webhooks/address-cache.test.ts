// The sender's cache of checked addresses (src/net/address-cache.ts): an answer is kept for its DNS
// TTL and no longer, a changed answer is checked before it is used, and nothing checked under one
// trust setting is seen under another. Time moves by a fake clock only.
import { describe, expect, test } from "bun:test";
import { createCheckedAddressCache, maxAddressTtlMs } from "../../src/net/address-cache.ts";
import { BlockedAddressError } from "../../src/net/checked-addresses.ts";
import { type ResolvedAddress, ResolveError } from "../../src/net/resolver.ts";
import { createFakeClock } from "../support/fake-clock.ts";

const host = "hooks.example.test";
const publicAnswer = (ttlSeconds: number): ResolvedAddress[] => [
  { address: "93.184.216.34", ttlSeconds },
];

/** A resolver that gives the queued answers in turn (the last one again when they run out). */
function scripted(...answers: (ResolvedAddress[] | Error)[]) {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (host: string) => {
      calls.push(host);
      const answer = answers.length > 1 ? answers.shift() : answers[0];
      if (answer instanceof Error) throw answer;
      return answer ?? [];
    },
  };
}

describe("checked addresses are kept for their DNS TTL", () => {
  test("within the TTL the checked answer is reused without resolving again", async () => {
    const clock = createFakeClock();
    const dns = scripted(publicAnswer(60));
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    expect(await cache.addressesFor(host, false)).toEqual(["93.184.216.34"]);
    clock.advance(59_999);
    expect(await cache.addressesFor(host, false)).toEqual(["93.184.216.34"]);
    expect(dns.calls).toEqual(["hooks.example.test"]);
  });

  test("once the TTL has passed the name is resolved and checked again", async () => {
    const clock = createFakeClock();
    const dns = scripted(publicAnswer(60), [{ address: "93.184.216.35", ttlSeconds: 60 }]);
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    await cache.addressesFor(host, false);
    clock.advance(60_000);
    expect(await cache.addressesFor(host, false)).toEqual(["93.184.216.35"]);
    expect(dns.calls).toHaveLength(2);
  });

  test("a rebinding answer after expiry is refused before anything is dialled to it", async () => {
    const clock = createFakeClock();
    const dns = scripted(publicAnswer(30), [{ address: "10.0.0.7", ttlSeconds: 3600 }]);
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    await cache.addressesFor(host, false);
    clock.advance(30_000);
    const refused = cache.addressesFor(host, false);
    await expect(refused).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(refused).rejects.toThrow("10.0.0.7");
    // The refusal is not kept: the next attempt asks DNS again (and is refused again).
    await expect(cache.addressesFor(host, false)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(dns.calls).toHaveLength(3);
  });

  test("the shortest TTL of an answer decides, and a TTL of 0 is never kept", async () => {
    const clock = createFakeClock();
    const dns = scripted([
      { address: "93.184.216.34", ttlSeconds: 300 },
      { address: "93.184.216.35", ttlSeconds: 0 },
    ]);
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    await cache.addressesFor(host, false);
    await cache.addressesFor(host, false);
    expect(dns.calls).toHaveLength(2);
  });

  test("a long TTL is capped: the name is checked again after the cap", async () => {
    const clock = createFakeClock();
    const dns = scripted(publicAnswer(86_400));
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    await cache.addressesFor(host, false);
    clock.advance(maxAddressTtlMs - 1);
    await cache.addressesFor(host, false);
    expect(dns.calls).toHaveLength(1);
    clock.advance(1);
    await cache.addressesFor(host, false);
    expect(dns.calls).toHaveLength(2);
  });

  test("a failed lookup is not kept", async () => {
    const clock = createFakeClock();
    const dns = scripted(
      new ResolveError("hooks.example.test could not be resolved (ENOTFOUND)"),
      publicAnswer(60),
    );
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    await expect(cache.addressesFor(host, false)).rejects.toBeInstanceOf(ResolveError);
    expect(await cache.addressesFor(host, false)).toEqual(["93.184.216.34"]);
  });

  test("sends waiting for the same name share one lookup", async () => {
    const clock = createFakeClock();
    const dns = scripted(publicAnswer(60));
    const cache = createCheckedAddressCache({ resolve: dns.resolve, clock, allowPrivate: false });
    await Promise.all([cache.addressesFor(host, false), cache.addressesFor(host, false)]);
    expect(dns.calls).toHaveLength(1);
  });
});

/** A development cache and a strict one over the same resolver. */
function bothSettings(resolve: ReturnType<typeof scripted>["resolve"]) {
  const clock = createFakeClock();
  return {
    development: createCheckedAddressCache({ resolve, clock, allowPrivate: true }),
    strict: createCheckedAddressCache({ resolve, clock, allowPrivate: false }),
  };
}

describe("a cache belongs to one trust setting", () => {
  test("a loopback answer kept by a development cache is refused by a strict one for the same host", async () => {
    const dns = scripted([{ address: "127.0.0.1", ttlSeconds: 3600 }]);
    const { development, strict } = bothSettings(dns.resolve);
    expect(await development.addressesFor(host, false)).toEqual(["127.0.0.1"]);
    await expect(strict.addressesFor(host, false)).rejects.toBeInstanceOf(BlockedAddressError);
  });

  test("a literal address is judged under the cache's own setting", async () => {
    const dns = scripted(publicAnswer(60));
    const { development, strict } = bothSettings(dns.resolve);
    expect(await development.addressesFor("127.0.0.1", true)).toEqual(["127.0.0.1"]);
    await expect(strict.addressesFor("127.0.0.1", true)).rejects.toThrow("loopback");
    expect(dns.calls).toHaveLength(0);
  });
});
