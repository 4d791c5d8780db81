import { Hono } from "hono";
import { readQuery } from "../../http/validate.ts";
import { listDeliveryPage } from "../../webhooks/delivery-log/log.ts";
import { getEndpoint } from "../../webhooks/endpoints/records.ts";
import type { PortalDeps } from "../deps.ts";
import { ownAccountId } from "../owner.ts";
import { accountDeliveryLogQuery, deliveryFilterOf } from "./delivery-query.ts";

/**
 * The account's delivery log across its endpoints, with the same filters, shape and
 * cursor as an endpoint's log; `endpoint` narrows it to one (another account's id is a 404).
 */
export function deliveryRoutes(services: PortalDeps): Hono {
  const { db } = services;
  const app = new Hono();
  app.get("/", async (c) => {
    const query = readQuery(c, accountDeliveryLogQuery);
    const serviceAccountId = ownAccountId(c);
    const endpoint = query.endpoint
      ? await getEndpoint(db, { endpointId: query.endpoint, serviceAccountId })
      : undefined;
    return c.json(
      await listDeliveryPage(db, {
        ...deliveryFilterOf(query),
        serviceAccountId,
        ...(endpoint ? { endpointId: endpoint.id } : {}),
      }),
    );
  });
  return app;
}
