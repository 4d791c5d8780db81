// Name resolution for webhook URLs, injectable so tests can answer with chosen addresses
// (e.g. public at registration, private at delivery).
import { lookup } from "node:dns/promises";

/** Returns every address `hostname` resolves to (IPv4 and IPv6), or throws ResolveError. */
export type Resolver = (hostname: string) => Promise<string[]>;

export class ResolveError extends Error {
  override name = "ResolveError";
}

export const systemResolver: Resolver = async (hostname) => {
  try {
    const answers = await lookup(hostname, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ResolveError(`${hostname} could not be resolved (${code})`);
  }
};

/** One address of an answer and how long it may be kept, in seconds (0: not at all). */
export interface ResolvedAddress {
  address: string;
  ttlSeconds: number;
}

/** Like Resolver, with each address's TTL: what the sender's address cache keeps answers for. */
export type TtlResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * The system's answer with TTLs (Bun.dns.lookup: the same lookup node:dns makes, /etc/hosts
 * included, which also reports the TTL; 0 where the source has none, e.g. /etc/hosts).
 */
export const systemTtlResolver: TtlResolver = async (hostname) => {
  try {
    const answers = await Bun.dns.lookup(hostname, {});
    return answers.map((answer) => ({ address: answer.address, ttlSeconds: answer.ttl ?? 0 }));
  } catch (error) {
    // Named as node:dns names them (ENOTFOUND, not DNS_ENOTFOUND): the message is stored.
    const code = ((error as NodeJS.ErrnoException).code ?? "error").replace(/^DNS_/, "");
    throw new ResolveError(`${hostname} could not be resolved (${code})`);
  }
};

/** A resolver without TTLs as a TtlResolver whose answers are never kept. */
export function withoutTtl(resolve: Resolver): TtlResolver {
  return async (hostname) =>
    (await resolve(hostname)).map((address) => ({ address, ttlSeconds: 0 }));
}

/** Resolves and refuses an empty answer, so callers always get at least one address. */
export async function resolveAll<T = string>(
  resolve: (hostname: string) => Promise<T[]>,
  hostname: string,
): Promise<T[]> {
  let addresses: T[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    if (error instanceof ResolveError) throw error;
    throw new ResolveError(`${hostname} could not be resolved (${(error as Error).message})`);
  }
  if (addresses.length === 0) throw new ResolveError(`${hostname} has no addresses`);
  return addresses;
}
