// Operators: any account's bank connections. List them with their ids, and remove
// one with the same feature function as the owner's Remove and `svc connections remove`
// (an Enable Banking session is ended at the provider first). Mounted under /operator, so the
// portal's same-origin and operator checks apply.
import { Hono } from "hono";
import { z } from "zod";
import { removeConnection } from "../../banking/link.ts";
import {
  listConnectionsForOperator,
  requireAnyConnection,
} from "../../banking/operator-connections.ts";
import { readQuery } from "../../http/validate.ts";
import type { PortalDeps } from "../deps.ts";

const listQuery = z.object({ account: z.uuid("must be a service account id") });

export function operatorConnectionRoutes(services: PortalDeps): Hono {
  const app = new Hono();

  app.get("/", async (c) => {
    const { account } = readQuery(c, listQuery);
    return c.json({ data: await listConnectionsForOperator(services.db, account) });
  });

  app.delete("/:id", async (c) => {
    const connection = await requireAnyConnection(services.db, c.req.param("id"));
    const result = await removeConnection(services, connection.id);
    return c.json({
      id: connection.id,
      serviceAccountId: connection.serviceAccountId,
      removed: true,
      providerSessionDeleted: result.providerSessionDeleted,
    });
  });

  return app;
}
