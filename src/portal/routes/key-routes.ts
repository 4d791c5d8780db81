import { Hono } from "hono";
import { z } from "zod";
import { readJson } from "../../http/validate.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../../keys/api-keys.ts";
import type { PortalDeps } from "../deps.ts";
import { ownAccountId } from "../owner.ts";

// The name's own rules (length, control characters) are checked by createApiKey.
const createBody = z.object({ name: z.string().max(1000).optional() }).strict();

/** API keys of the signed-in account: create (full key in this answer only), list, revoke. */
export function keyRoutes(services: PortalDeps): Hono {
  const { db, clock } = services;
  const app = new Hono();

  app.get("/", async (c) => c.json({ data: await listApiKeys(db, ownAccountId(c)) }));

  app.post("/", async (c) => {
    const body = await readJson(c, createBody);
    const created = await createApiKey(db, clock, {
      serviceAccountId: ownAccountId(c),
      ...(body.name !== undefined ? { name: body.name } : {}),
    });
    return c.json(created, 201);
  });

  app.post("/:id/revoke", async (c) => {
    const revoked = await revokeApiKey(db, clock, c.req.param("id"), {
      serviceAccountId: ownAccountId(c),
    });
    return c.json(revoked);
  });

  return app;
}
