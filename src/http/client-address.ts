// The address of the client that made a request. Directly connected, it is the TCP peer. Behind
// reverse proxies the operator trusts (config trustedProxies), it is read from X-Forwarded-For,
// right to left: each trusted proxy appends the address it got the request from, so the first
// address that is not a trusted proxy is the client. Entries left of it were written by someone
// else (the client itself, perhaps) and are never believed.
import type { Context } from "hono";
import { getConnInfo } from "hono/bun";
import ipaddr from "ipaddr.js";
import { parseAddressRange } from "../config/config.ts";

export type ClientAddressOf = (c: Context) => string | undefined;

export function createClientAddressResolver(trustedProxies: readonly string[]): ClientAddressOf {
  const ranges = trustedProxies
    .map((text) => parseAddressRange(text))
    .filter((range) => range !== undefined);
  const isTrusted = (address: ipaddr.IPv4 | ipaddr.IPv6) =>
    ranges.some(
      ([network, bits]) => network.kind() === address.kind() && address.match(network, bits),
    );
  return (c) => {
    const peer = peerAddress(c);
    if (peer === undefined || ranges.length === 0 || !isTrusted(peer)) return peer?.toString();
    let client = peer;
    const forwarded = (c.req.header("x-forwarded-for") ?? "").split(",").reverse();
    for (const entry of forwarded) {
      const address = parseAddress(entry);
      // A malformed hop: the last address that can be believed is the one before it.
      if (address === undefined) break;
      client = address;
      if (!isTrusted(address)) break;
    }
    return client.toString();
  };
}

function peerAddress(c: Context): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    const address = getConnInfo(c).remote.address;
    return address === undefined ? undefined : parseAddress(address);
  } catch {
    return undefined;
  }
}

/** IPv4-mapped IPv6 addresses count as the IPv4 address they carry. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const value = text.trim();
  return ipaddr.isValid(value) ? ipaddr.process(value) : undefined;
}
