import { type Context, Hono } from "hono";
import { z } from "zod";
import { readJson, readQuery } from "../../http/validate.ts";
import { withWebhookContext } from "../../webhooks/delivery/context.ts";
import { testEndpoint } from "../../webhooks/delivery/test-send.ts";
import {
  pendingVerification,
  sendVerificationCode,
  verificationAttempts,
  verifyEndpoint,
} from "../../webhooks/delivery/verification.ts";
import { getDeliveryDetail } from "../../webhooks/delivery-log/detail.ts";
import { listDeliveryPage } from "../../webhooks/delivery-log/log.ts";
import {
  cancelRecovery,
  getRecovery,
  listRecoveries,
  previewRecovery,
  startRecovery,
} from "../../webhooks/delivery-log/recovery.ts";
import { resendDelivery, retryDeliveryNow } from "../../webhooks/delivery-log/resend.ts";
import { deliveryStats } from "../../webhooks/delivery-log/stats.ts";
import { type EndpointRef, getEndpoint, listEndpoints } from "../../webhooks/endpoints/records.ts";
import {
  maxEndpointsPerAccount,
  registerEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
} from "../../webhooks/endpoints/registration.ts";
import {
  enableEndpoint,
  pauseEndpoint,
  removeEndpoint,
  resumeEndpoint,
} from "../../webhooks/endpoints/state.ts";
import type { PortalDeps } from "../deps.ts";
import { ownAccountId } from "../owner.ts";
import { deliveryFilterOf, deliveryLogQuery } from "./delivery-query.ts";

// URL and description rules are the feature's (registerEndpoint); these bound the input size.
const eventTypesField = z.array(z.string().max(100)).max(20).nullable().optional();
const registerBody = z
  .object({
    url: z.string().max(4096),
    description: z.string().max(1000).optional(),
    eventTypes: eventTypesField,
  })
  .strict();
const updateBody = z
  .object({ description: z.string().max(1000).nullable().optional(), eventTypes: eventTypesField })
  .strict();
const verifyBody = z.object({ code: z.string().trim().min(1, "enter the code").max(64) }).strict();
const recoveryWindow = {
  since: z.iso.datetime({ offset: true }),
  until: z.iso.datetime({ offset: true }).optional(),
};
const recoveryBody = z.object(recoveryWindow).strict();
const recoveryQuery = z.object(recoveryWindow).strict();
const windowOf = (input: { since: string; until?: string | undefined }) => ({
  since: new Date(input.since),
  ...(input.until !== undefined ? { until: new Date(input.until) } : {}),
});
const statsQuery = z.object({ hours: z.coerce.number().int().min(1).max(168).optional() }).strict();

/**
 * Webhook endpoints of the signed-in account (spec 2, 3, 8). Every action is scoped with the
 * account, so another account's endpoint id answers 404. Rate-limit refusals (429) pass
 * through with their message and Retry-After.
 */
export function endpointRoutes(services: PortalDeps): Hono {
  const { db, clock } = services;
  const app = new Hono();
  const ref = (c: Context): EndpointRef => ({
    endpointId: c.req.param("id") ?? "",
    serviceAccountId: ownAccountId(c),
  });
  const detail = async (r: EndpointRef) => {
    const endpoint = await getEndpoint(db, r);
    return {
      endpoint,
      verification: endpoint.verified ? null : await pendingVerification(db, clock, endpoint.id),
    };
  };

  app.get("/", async (c) =>
    c.json({
      data: await listEndpoints(db, ownAccountId(c)),
      limits: { maxEndpoints: maxEndpointsPerAccount, verificationAttempts },
    }),
  );

  app.post("/", async (c) => {
    const body = await readJson(c, registerBody);
    const created = await withWebhookContext(services, (ctx) =>
      registerEndpoint(ctx, {
        serviceAccountId: ownAccountId(c),
        url: body.url,
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.eventTypes !== undefined ? { eventTypes: body.eventTypes } : {}),
      }),
    );
    return c.json(created, 201);
  });

  app.get("/:id", async (c) => c.json(await detail(ref(c))));

  app.patch("/:id", async (c) => {
    const body = await readJson(c, updateBody);
    return c.json({
      endpoint: await updateEndpoint(services, ref(c), {
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.eventTypes !== undefined ? { eventTypes: body.eventTypes } : {}),
      }),
    });
  });

  app.delete("/:id", async (c) => c.json(await removeEndpoint(db, ref(c))));

  app.post("/:id/send-code", async (c) => {
    const r = ref(c);
    const sent = await withWebhookContext(services, (ctx) => sendVerificationCode(ctx, r));
    return c.json({ send: sent, ...(await detail(r)) });
  });

  app.post("/:id/verify", async (c) => {
    const { code } = await readJson(c, verifyBody);
    return c.json({ endpoint: await verifyEndpoint(services, ref(c), code), verification: null });
  });

  app.post("/:id/test", async (c) => {
    const r = ref(c);
    return c.json(await withWebhookContext(services, (ctx) => testEndpoint(ctx, r)));
  });

  app.post("/:id/rotate-secret", async (c) => c.json(await rotateEndpointSecret(services, ref(c))));

  for (const [action, change] of [
    ["enable", enableEndpoint],
    ["pause", pauseEndpoint],
    ["resume", resumeEndpoint],
  ] as const) {
    app.post(`/:id/${action}`, async (c) => c.json({ endpoint: await change(db, clock, ref(c)) }));
  }

  // The log, newest first: { data, nextCursor } (pass nextCursor as `before` for older ones).
  app.get("/:id/deliveries", async (c) => {
    const query = readQuery(c, deliveryLogQuery);
    // Scope first: another account's endpoint is not found, not an empty log.
    const endpoint = await getEndpoint(db, ref(c));
    return c.json(
      await listDeliveryPage(db, { ...deliveryFilterOf(query), endpointId: endpoint.id }),
    );
  });

  // One delivery for debugging: exact body, each attempt's headers, allowed actions.
  app.get("/:id/deliveries/:deliveryId", async (c) =>
    c.json({
      delivery: await getDeliveryDetail(services, {
        deliveryId: c.req.param("deliveryId"),
        endpointId: c.req.param("id"),
        serviceAccountId: ownAccountId(c),
      }),
    }),
  );

  // Attempts per UTC hour, succeeded and failed, for the log's chart.
  app.get("/:id/delivery-stats", async (c) => {
    const { hours } = readQuery(c, statsQuery);
    const endpoint = await getEndpoint(db, ref(c));
    return c.json(await deliveryStats(services, endpoint.id, hours ?? 24));
  });

  // Resend: the delivery's event again to its endpoint, as a new manual delivery.
  const deliveryRef = (c: Context) => ({
    deliveryId: c.req.param("deliveryId") ?? "",
    endpointId: c.req.param("id") ?? "",
    serviceAccountId: ownAccountId(c),
  });
  app.post("/:id/deliveries/:deliveryId/resend", async (c) =>
    c.json({ delivery: await resendDelivery(services, deliveryRef(c)) }, 201),
  );
  app.post("/:id/deliveries/:deliveryId/retry", async (c) =>
    c.json({ delivery: await retryDeliveryNow(services, deliveryRef(c)) }),
  );

  // Recover (beside Resend): re-send every failed delivery of a window, paced; one at a time.
  app.get("/:id/recoveries", async (c) => c.json({ data: await listRecoveries(db, ref(c)) }));
  app.get("/:id/recoveries/preview", async (c) =>
    c.json(await previewRecovery(services, ref(c), windowOf(readQuery(c, recoveryQuery)))),
  );
  app.post("/:id/recoveries", async (c) => {
    const body = await readJson(c, recoveryBody);
    return c.json({ recovery: await startRecovery(services, ref(c), windowOf(body)) }, 201);
  });
  app.post("/:id/recoveries/cancel", async (c) =>
    c.json({ recovery: await cancelRecovery(services, ref(c)) }),
  );
  app.get("/:id/recoveries/:recoveryId", async (c) =>
    c.json({
      recovery: await getRecovery(db, { ...ref(c), recoveryId: c.req.param("recoveryId") }),
    }),
  );

  return app;
}
