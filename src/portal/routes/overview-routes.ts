import { Hono } from "hono";
import { accountAttention } from "../../accounts/attention.ts";
import { billingContact } from "../../accounts/billing-contact.ts";
import { accessFactsOf, describeApiAccess } from "../../accounts/entitlement.ts";
import { getServiceAccount } from "../../accounts/service-accounts.ts";
import { listOwnConnections } from "../../banking/account-connections.ts";
import { listApiKeys } from "../../keys/api-keys.ts";
import { listEndpoints } from "../../webhooks/endpoints/records.ts";
import type { PortalDeps } from "../deps.ts";
import { ownAccountId } from "../owner.ts";

/**
 * The owner's overview: account status, subscription and what an API call would get now and
 * why (spec 3 "Entitlement"), the address deliveries come from, the base URL, and how far the
 * set-up has got (keys, endpoints, connections), what needs the owner now (`attention`, also at
 * `/overview/attention` for the banner every page shows) and where to pay (`billing`).
 */
export function overviewRoutes(services: PortalDeps): Hono {
  const { db, clock, config } = services;
  const app = new Hono();
  app.get("/attention", async (c) => c.json(await accountAttention(db, clock, ownAccountId(c))));

  app.get("/", async (c) => {
    const account = await getServiceAccount(db, ownAccountId(c));
    const endpoints = await listEndpoints(db, account.id);
    return c.json({
      account: {
        id: account.id,
        name: account.name,
        ...accessFactsOf(account),
      },
      access: describeApiAccess(account),
      baseUrl: config.baseUrl,
      apiBaseUrl: `${config.baseUrl}/v1`,
      deliverySourceIp: config.deliverySourceIp ?? null,
      setup: {
        activeKeys: (await listApiKeys(db, account.id)).filter((k) => k.status === "active").length,
        endpoints: endpoints.length,
        verifiedEndpoints: endpoints.filter((e) => e.verified).length,
        // Verified and active: the endpoints account events reach now (spec 3).
        receivingEndpoints: endpoints.filter((e) => e.verified && e.status === "active").length,
        disabledEndpoints: endpoints.filter((e) => e.status === "disabled").length,
        connections: (await listOwnConnections(db, account.id)).length,
      },
      attention: await accountAttention(db, clock, account.id),
      billing: await billingContact(db, config),
    });
  });
  return app;
}
