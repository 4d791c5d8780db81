// The sender's checked addresses per host (spec 4 "Requirements on a registered endpoint": the
// address dialled is an address checked). A name's answer is resolved, every address checked,
// and only then kept, for the answer's DNS TTL (at most `maxTtlMs`); once that has passed the
// name is resolved and checked again, so a changed answer (DNS rebinding included) is judged
// before anything is dialled to it. Refusals and failed lookups are never kept. A literal
// address's verdict depends on the address alone and is kept until the cache is full. One cache
// belongs to one sender, whose trust setting (allowPrivate) it was checked under: nothing checked
// under the development setting is ever seen by a strict sender.
import type { Clock } from "../core/clock.ts";
import { checkedAddresses } from "./checked-addresses.ts";
import { resolveAll, type TtlResolver } from "./resolver.ts";

/** A name's answer is re-resolved and re-checked after this long even if its TTL is longer. */
export const maxAddressTtlMs = 300_000;
/** Hosts remembered at most (the whole cache is dropped when full: a refill costs lookups). */
const maxEntries = 1024;

export interface CheckedAddressCache {
  /**
   * The checked addresses to dial for a URL's host (a name, or a literal address without
   * brackets; IPv4-mapped ones come back as plain IPv4); throws ResolveError or
   * BlockedAddressError naming the address and its range.
   */
  addressesFor(host: string, literal: boolean): Promise<readonly string[]>;
}

export interface CheckedAddressCacheOptions {
  resolve: TtlResolver;
  clock: Clock;
  allowPrivate: boolean;
  maxTtlMs?: number;
}

interface Entry {
  addresses: readonly string[];
  /** Epoch ms after which the answer is resolved and checked again. */
  expiresAt: number;
}

export function createCheckedAddressCache(
  options: CheckedAddressCacheOptions,
): CheckedAddressCache {
  const maxTtlMs = options.maxTtlMs ?? maxAddressTtlMs;
  const entries = new Map<string, Entry>();
  /** Lookups under way, shared by the sends that need the same host meanwhile. */
  const lookups = new Map<string, Promise<readonly string[]>>();

  const keep = (host: string, entry: Entry) => {
    if (entries.size >= maxEntries) entries.clear();
    entries.set(host, entry);
  };

  async function lookUp(host: string): Promise<readonly string[]> {
    const answers = await resolveAll(options.resolve, host);
    const addresses = checkedAddresses(
      host,
      answers.map((answer) => answer.address),
      false,
      options,
    );
    const ttlMs = Math.min(maxTtlMs, ...answers.map((answer) => answer.ttlSeconds * 1000));
    if (ttlMs > 0) keep(host, { addresses, expiresAt: options.clock.now().getTime() + ttlMs });
    return addresses;
  }

  return {
    async addressesFor(host, literal) {
      const known = entries.get(host);
      if (known && (literal || options.clock.now().getTime() < known.expiresAt)) {
        return known.addresses;
      }
      if (literal) {
        const addresses = checkedAddresses(host, [host], true, options);
        keep(host, { addresses, expiresAt: Number.POSITIVE_INFINITY });
        return addresses;
      }
      const under = lookups.get(host);
      if (under !== undefined) return under;
      const lookup = lookUp(host).finally(() => lookups.delete(host));
      lookups.set(host, lookup);
      return lookup;
    },
  };
}
