import type { Context } from "hono";

/** The signed-in user's service account: every owner route is scoped to it. */
export function ownAccountId(c: Context): string {
  return c.get("portalUser").serviceAccountId;
}
