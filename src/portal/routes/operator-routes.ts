import { Hono } from "hono";
import { z } from "zod";
import {
  accountFlagsSchema,
  createServiceAccount,
  listServiceAccounts,
  updateServiceAccount,
} from "../../accounts/service-accounts.ts";
import { readJson, readQuery } from "../../http/validate.ts";
import { listMail } from "../../mail/outbox.ts";
import type { PortalDeps } from "../deps.ts";
import { createImportRoutes } from "./import-routes.ts";
import { operatorConnectionRoutes } from "./operator-connection-routes.ts";

const mailQuery = z.object({
  account: z.uuid("must be a service account id").optional(),
  unsent: z.enum(["true", "false"]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

// Create account: the password is always generated, shown once, and must be changed
// at first sign-in, as `svc accounts create` without --password-file.
const createAccountBody = z
  .object({
    email: z.string().max(254),
    name: z.string().trim().max(200).optional(),
    isOperator: z.boolean().optional(),
    status: z.enum(["sandbox", "active", "lapsed"]).optional(),
    subscriptionStatus: z.enum(["active", "trialing", "past_due", "canceled", "none"]).optional(),
  })
  .strict();

/** Operator pages: every account's metadata (never a secret) and the instance settings. */
export function operatorRoutes(services: PortalDeps): Hono {
  const { db, clock, config } = services;
  const app = new Hono();

  app.get("/accounts", async (c) => {
    const { search } = readQuery(c, z.object({ search: z.string().max(200).optional() }));
    return c.json({ data: await listServiceAccounts(db, search) });
  });

  app.post("/accounts", async (c) => {
    const body = await readJson(c, createAccountBody);
    const created = await createServiceAccount(db, clock, {
      email: body.email,
      ...(body.name ? { name: body.name } : {}),
      ...(body.isOperator !== undefined ? { isOperator: body.isOperator } : {}),
      ...(body.status ? { status: body.status } : {}),
      ...(body.subscriptionStatus ? { subscriptionStatus: body.subscriptionStatus } : {}),
    });
    return c.json(
      {
        account: created.account,
        userId: created.userId,
        oneTimePassword: created.oneTimePassword,
      },
      201,
    );
  });

  app.patch("/accounts/:id", async (c) => {
    const changes = await readJson(c, accountFlagsSchema);
    return c.json(await updateServiceAccount(db, clock, c.req.param("id"), changes));
  });

  app.get("/settings", (c) =>
    c.json({
      baseUrl: config.baseUrl,
      deliverySourceIp: config.deliverySourceIp ?? null,
      smtpConfigured: config.smtpUrl !== undefined,
      mailFrom: config.mailFrom,
      billingUrl: config.billingUrl ?? null,
      syncSchedule: config.syncSchedule,
      retentionDays: config.retentionDays,
      apiRateLimitPerMinute: config.apiRateLimitPerMinute,
      tls: config.tlsCertFile !== undefined,
      unsafeAllowPrivateTargets: config.unsafeAllowPrivateTargets,
    }),
  );

  // The mail outbox: every e-mail the service meant to send, sent or not.
  app.get("/mail", async (c) => {
    const query = readQuery(c, mailQuery);
    return c.json({
      data: await listMail(db, {
        ...(query.account ? { serviceAccountId: query.account } : {}),
        unsentOnly: query.unsent === "true",
        limit: query.limit ?? 100,
      }),
      // Without SMTP nothing is ever sent: the outbox is where the operator reads the mail.
      smtpConfigured: config.smtpUrl !== undefined,
    });
  });

  // Any account's connections: list with ids, remove.
  app.route("/connections", operatorConnectionRoutes(services));

  // Operator ingest: the same JSON document as `svc import`.
  app.route("/import", createImportRoutes(services));

  return app;
}
