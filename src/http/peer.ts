// Bun tells a request's peer address only for the Request object it handed to `fetch`
// (`server.requestIP(request)`); a request rebuilt on the way has none: the canonical-ids
// rewrite (canonical-ids.ts) and Hono's body limit, which replaces a chunked body it has counted
// (body-limit.ts). Without a peer, the per-address sign-in limit would not count the request, so
// the app is given the peer of the request as it arrived, whichever object asks.
import type { SocketAddress } from "bun";

export interface PeerSource {
  requestIP(request: Request): SocketAddress | null;
}

/** Hono's `env` (getConnInfo calls its requestIP) bound to the request as Bun received it. */
export function peerOfArrival(server: unknown, arrived: Request): PeerSource | undefined {
  const source = server as PeerSource | undefined;
  if (typeof source?.requestIP !== "function") return undefined;
  return { requestIP: () => source.requestIP(arrived) };
}
