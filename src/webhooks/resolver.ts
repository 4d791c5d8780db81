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

/** Resolves and refuses an empty answer, so callers always get at least one address. */
export async function resolveAll(resolve: Resolver, hostname: string): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    if (error instanceof ResolveError) throw error;
    throw new ResolveError(`${hostname} could not be resolved (${(error as Error).message})`);
  }
  if (addresses.length === 0) throw new ResolveError(`${hostname} has no addresses`);
  return addresses;
}
