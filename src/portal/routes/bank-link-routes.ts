// The signed-in owner's real-bank links: which providers are configured,
// Enable Banking's bank list, start a link (redirect URL) or link SimpleFIN with a pasted setup
// token, and remove a connection. Thin: validate, call the feature function, answer.
import { Hono } from "hono";
import { z } from "zod";
import { requireOwnConnection } from "../../banking/account-connections.ts";
import { completeLink, listBanks, removeConnection, startLink } from "../../banking/link.ts";
import { providerCatalog, realProviderNames } from "../../banking/providers/descriptors.ts";
import { renewSimplefin, startRenew } from "../../banking/renew.ts";
import { readJson } from "../../http/validate.ts";
import type { PortalDeps } from "../deps.ts";
import { linkCookie } from "../link-cookie.ts";
import { ownAccountId } from "../owner.ts";

const enableBankingBody = z
  .object({
    country: z.string().regex(/^[A-Za-z]{2}$/, "must be a two-letter country code"),
    bank: z.string().trim().min(1).max(200),
    consent_days: z.number().int().min(1).max(180).optional(),
  })
  .strict();
const simplefinBody = z.object({ setup_token: z.string().trim().min(1).max(4000) }).strict();
const renewBody = z.object({ setup_token: z.string().trim().min(1).max(4000).optional() }).strict();

export function bankLinkRoutes(services: PortalDeps): Hono {
  const app = new Hono();
  const cookie = linkCookie(services.config.baseUrl);

  app.get("/providers", (c) =>
    c.json({
      data: realProviderNames.map((name) => {
        const { budget, configured } = providerCatalog[name];
        return {
          name,
          configured: configured(services.config),
          requests_per_day: budget.requests,
          budget_scope: budget.scope,
        };
      }),
    }),
  );

  app.get("/enable-banking/banks", async (c) =>
    c.json({ data: await listBanks(services, c.req.query("country") ?? "") }),
  );

  app.post("/enable-banking", async (c) => {
    const body = await readJson(c, enableBankingBody);
    // The link is bound to this browser: only it (or the owner signed in) finishes it.
    const browserNonce = cookie.nonceFor(c);
    const start = await startLink(
      services,
      ownAccountId(c),
      {
        provider: "enable_banking",
        country: body.country,
        bank: body.bank,
        ...(body.consent_days !== undefined ? { consentDays: body.consent_days } : {}),
      },
      { browserNonce },
    );
    if (start.kind !== "redirect") return c.json({ message: start.message });
    cookie.write(c, browserNonce, start.stateExpiresAt);
    return c.json(
      {
        connection_id: start.connectionId,
        redirect_url: start.url,
        expires_at: start.stateExpiresAt.toISOString(),
      },
      201,
    );
  });

  app.post("/simplefin", async (c) => {
    const body = await readJson(c, simplefinBody);
    const result = await completeLink(services, {
      provider: "simplefin",
      serviceAccountId: ownAccountId(c),
      setupToken: body.setup_token,
    });
    return c.json({ connection_id: result.connectionId, status: result.status }, 201);
  });

  // Renew: Enable Banking answers the bank's URL (the link is bound to this browser, as a new
  // link is); SimpleFIN takes a new setup token and answers the outcome.
  app.post("/:id/renew", async (c) => {
    const connection = await requireOwnConnection(services.db, ownAccountId(c), c.req.param("id"));
    const body = await readJson(c, renewBody);
    if (body.setup_token !== undefined) {
      const result = await renewSimplefin(services, connection.id, body.setup_token);
      return c.json({ connection_id: result.connectionId, status: result.status });
    }
    const browserNonce = cookie.nonceFor(c);
    const start = await startRenew(services, connection.id, { browserNonce });
    if (start.kind !== "redirect") return c.json({ message: start.message });
    cookie.write(c, browserNonce, start.stateExpiresAt);
    return c.json({
      connection_id: start.connectionId,
      redirect_url: start.url,
      expires_at: start.stateExpiresAt.toISOString(),
    });
  });

  app.delete("/:id", async (c) => {
    const connection = await requireOwnConnection(services.db, ownAccountId(c), c.req.param("id"));
    const result = await removeConnection(services, connection.id);
    return c.json({
      id: connection.id,
      removed: true,
      provider_session_deleted: result.providerSessionDeleted,
    });
  });

  return app;
}
