import type { Context } from "hono";
import { getConnInfo } from "hono/bun";

/** The peer address of the connection (the proxy's, behind a reverse proxy), if known. */
export function clientAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
