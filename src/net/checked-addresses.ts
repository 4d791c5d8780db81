// The addresses an outbound request may dial (spec 4 "Requirements on a registered endpoint":
// public only), shared by the webhook sender and the bank providers: every address a host
// resolves to is checked, and only checked addresses are dialled.
import { checkAddress, isIpLiteral } from "./address-guard.ts";
import { type Resolver, resolveAll } from "./resolver.ts";

export interface AddressRuleOptions {
  /** `unsafeAllowPrivateTargets`: loopback and private addresses too (tests, development). */
  allowPrivate: boolean;
}

/** The name to resolve, or the literal address, of a parsed URL (IPv6 without brackets). */
export function urlHostAddress(url: URL): { literal: boolean; host: string } {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return { literal: isIpLiteral(url.hostname), host };
}

export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
}

/**
 * Checks every address `host` gave (spec 4: public only) and returns them as they are dialled
 * (IPv4-mapped ones as plain IPv4); throws BlockedAddressError naming the address and its range.
 */
export function checkedAddresses(
  host: string,
  addresses: readonly string[],
  literal: boolean,
  options: AddressRuleOptions,
): string[] {
  return addresses.map((address) => {
    const verdict = checkAddress(address, { allowPrivate: options.allowPrivate });
    if (!verdict.allowed) {
      const via = literal ? "" : `${host} resolves to a non-public address: `;
      throw new BlockedAddressError(
        `${via}${verdict.reason}; webhook URLs must be publicly reachable.`,
      );
    }
    return verdict.dialAddress;
  });
}

/**
 * Resolves the URL's host and checks every address (spec 4: public only). Returns the checked
 * addresses (IPv4-mapped ones as plain IPv4), the only ones a delivery may connect to. Throws ResolveError or
 * BlockedAddressError with a message that names the address and its range.
 */
export async function resolveCheckedAddresses(
  url: URL,
  resolve: Resolver,
  options: AddressRuleOptions,
): Promise<string[]> {
  const { literal, host } = urlHostAddress(url);
  const addresses = literal ? [host] : await resolveAll(resolve, host);
  return checkedAddresses(host, addresses, literal, options);
}
