// The SSRF guard (spec 4 "Requirements on a registered endpoint": public only; docs/security.md
// "Webhooks: the SSRF guard"). Every address a webhook URL resolves to must be public unicast, at
// registration and again at each delivery. IPv6 forms that carry an IPv4 address (IPv4-mapped,
// IPv4-translated, IPv4-compatible, NAT64, 6to4) are judged by the IPv4 inside them, so
// ::ffff:127.0.0.1 or 2002:7f00:1:: cannot smuggle loopback past the check. Teredo (2001::/32) is
// refused as a class: it is a NAT-traversal tunnel for hosts that have no IPv6 of their own, no
// webhook receiver lives behind one, and its relay decides where packets go.
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type AddressVerdict =
  | {
      allowed: true;
      address: string;
      /** What to connect to: the IPv4 itself for an IPv4-mapped address, else `address`. */
      dialAddress: string;
    }
  | { allowed: false; address: string; reason: string };

/** What each refused range is, in words an account owner understands. */
const rangeWords: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address (this includes cloud metadata services such as 169.254.169.254)",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT (shared, RFC 6598) address",
  private: "a private-network address",
  uniqueLocal: "a private-network (unique local) address",
  reserved: "a reserved or documentation address",
  benchmarking: "a benchmarking address",
  amt: "an AMT relay address",
  as112: "an AS112 (DNS sink) address",
  as112v6: "an AS112 (DNS sink) address",
  deprecatedSiteLocal: "a site-local address",
  discard: "a discard-only address",
  orchid2: "an ORCHID address",
  deprecatedOrchid: "an ORCHID address",
  droneRemoteIdProtocolEntityTags: "a DRIP entity tag",
  segmentRouting: "a segment-routing address",
  localNat64: "a local-use NAT64 address",
  teredo: "a Teredo tunnel address (2001::/32); no webhook receiver is reached through Teredo",
  ipv4Compatible: "an IPv4-compatible IPv6 address",
};

/** Ranges a development instance may reach with `unsafeAllowPrivateTargets` (never public use). */
const unsafeAllowed = new Set([
  "loopback",
  "private",
  "uniqueLocal",
  "linkLocal",
  "carrierGradeNat",
]);

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

interface Unwrapped {
  /** The ranges that decide: the address itself, or every IPv4 address carried inside it. */
  judged: { address: Address; range: string }[];
  /** How the IPv4 was carried, for the message (e.g. "6to4"). */
  carrier?: string;
}

function unwrap(address: Address): Unwrapped {
  if (address.kind() === "ipv4") return { judged: [{ address, range: address.range() }] };
  const v6 = address as ipaddr.IPv6;
  const p = v6.parts as [number, number, number, number, number, number, number, number];
  const range = v6.range() as string;
  const inner = (carrier: string, ...addresses: ipaddr.IPv4[]): Unwrapped => ({
    carrier,
    judged: addresses.map((a) => ({ address: a, range: a.range() })),
  });
  switch (range) {
    case "ipv4Mapped":
      return inner("IPv4-mapped", v6.toIPv4Address());
    case "rfc6145":
      return inner("IPv4-translated", ipv4FromWords(p[6], p[7]));
    case "rfc6052":
      // 64:ff9b::/96 carries the IPv4 in its last 32 bits; the local-use 64:ff9b:1::/48 may put it
      // anywhere and only ever leads into a private network.
      if (p[2] !== 0) return { judged: [{ address, range: "localNat64" }] };
      return inner("NAT64", ipv4FromWords(p[6], p[7]));
    case "6to4":
      return inner("6to4", ipv4FromWords(p[1], p[2]));
  }
  // ::a.b.c.d (deprecated IPv4-compatible form) other than :: and ::1.
  if (range === "unicast" && p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0) {
    return { judged: [{ address, range: "ipv4Compatible" }] };
  }
  return { judged: [{ address, range }] };
}

/**
 * Decides whether `text` (an IP address as the URL parser or a resolver gives it) may be
 * contacted. With `allowPrivate` (tests and development only) loopback and private ranges pass.
 */
export function checkAddress(
  text: string,
  options: { allowPrivate?: boolean } = {},
): AddressVerdict {
  let address: Address;
  try {
    address = ipaddr.parse(text.replace(/^\[|\]$/g, ""));
  } catch {
    return { allowed: false, address: text, reason: `${text} is not an IP address` };
  }
  const shown = address.toString();
  const { judged, carrier } = unwrap(address);
  for (const { address: inner, range } of judged) {
    if (range === "unicast") continue;
    if (options.allowPrivate && unsafeAllowed.has(range)) continue;
    const what = rangeWords[range] ?? `a non-public address (${range})`;
    const via = carrier ? ` (${carrier} form of ${inner.toString()})` : "";
    return { allowed: false, address: shown, reason: `${shown}${via} is ${what}` };
  }
  const dialAddress =
    address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
      ? (address as ipaddr.IPv6).toIPv4Address().toString()
      : shown;
  return { allowed: true, address: shown, dialAddress };
}

/** Whether a URL hostname is an IP literal (IPv6 in brackets) rather than a name to resolve. */
export function isIpLiteral(hostname: string): boolean {
  return ipaddr.isValid(hostname.replace(/^\[|\]$/g, ""));
}
