import { Hono } from "hono";
import { describeApiAccess } from "../../accounts/entitlement.ts";
import { getServiceAccount } from "../../accounts/service-accounts.ts";
import { listOwnConnections } from "../../banking/account-connections.ts";
import { listApiKeys } from "../../keys/api-keys.ts";
import type { Services } from "../../services.ts";
import { listEndpoints } from "../../webhooks/endpoint-records.ts";
import { ownAccountId } from "../owner.ts";

/**
 * The owner's overview: account status, subscription and what an API call would get now and
 * why (spec 3 "Entitlement"), the address deliveries come from, the base URL, and how far the
 * set-up has got (keys, endpoints, connections).
 */
export function overviewRoutes(services: Services): Hono {
  const { db, clock, config } = services;
  const app = new Hono();
  app.get("/", async (c) => {
    const account = await getServiceAccount(db, ownAccountId(c));
    const endpoints = await listEndpoints(db, account.id);
    return c.json({
      account: {
        id: account.id,
        name: account.name,
        status: account.status,
        subscriptionStatus: account.subscriptionStatus,
        paymentFailed: account.paymentFailed,
        disabled: account.disabled,
        demo: account.demo,
        connectEnabled: account.connectEnabled,
      },
      access: describeApiAccess(account),
      baseUrl: config.baseUrl,
      apiBaseUrl: `${config.baseUrl}/v1`,
      deliverySourceIp: config.deliverySourceIp ?? null,
      setup: {
        activeKeys: (await listApiKeys(db, account.id)).filter((k) => k.status === "active").length,
        endpoints: endpoints.length,
        verifiedEndpoints: endpoints.filter((e) => e.verified).length,
        connections: (await listOwnConnections(db, clock, account.id)).length,
      },
    });
  });
  return app;
}
