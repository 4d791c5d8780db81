import { Hono } from "hono";
import { z } from "zod";
import { maxPasswordLength } from "../../accounts/passwords.ts";
import { accountDisabledNotice, getServiceAccount } from "../../accounts/service-accounts.ts";
import { dismissQuickStart, quickStartShown } from "../../accounts/users.ts";
import { createClientAddressResolver } from "../../http/client-address.ts";
import { readJson } from "../../http/validate.ts";
import type { Services } from "../../services.ts";
import { requireSession } from "../auth.ts";
import type { SessionCookie } from "../cookies.ts";
import { changePasswordThrottled } from "../password-change.ts";
import { createSession, deleteSession, deleteUserSessions } from "../sessions.ts";
import { signIn } from "../sign-in.ts";

const signInBody = z.object({
  email: z.string().max(254),
  password: z.string().max(maxPasswordLength),
});

const passwordBody = z.object({
  currentPassword: z.string().max(maxPasswordLength),
  newPassword: z.string(),
});

/** Sign-in, sign-out, who am I, and the password change (also for one-time passwords). */
export function sessionRoutes(services: Services, cookie: SessionCookie): Hono {
  const { db, clock } = services;
  const app = new Hono();
  const anySession = requireSession(db, clock, cookie, { allowOneTimePassword: true });
  const clientAddress = createClientAddressResolver(services.config.trustedProxies);

  const describeMe = async (
    userId: string,
    email: string,
    isOperator: boolean,
    mustChangePassword: boolean,
    accountId: string,
  ) => {
    const account = await getServiceAccount(db, accountId);
    return {
      user: { id: userId, email, isOperator, mustChangePassword },
      // A disabled account's users may still sign in, to read why (docs/decisions.md).
      account: {
        id: account.id,
        name: account.name,
        disabled: account.disabled,
        notice: account.disabled ? accountDisabledNotice : null,
      },
      quickStart: await quickStartShown(db, userId),
    };
  };

  app.post("/session", async (c) => {
    const body = await readJson(c, signInBody);
    const address = clientAddress(c);
    const { userId } = await signIn(db, clock, {
      ...body,
      ...(address ? { clientAddress: address } : {}),
    });
    const session = await createSession(db, clock, userId);
    cookie.write(c, session.token, session.expiresAt);
    return c.json({ signedIn: true, expiresAt: session.expiresAt.toISOString() }, 201);
  });

  app.delete("/session", anySession, async (c) => {
    await deleteSession(db, c.get("portalUser").sessionId);
    cookie.clear(c);
    return c.body(null, 204);
  });

  app.get("/me", anySession, async (c) => {
    const me = c.get("portalUser");
    return c.json(
      await describeMe(
        me.userId,
        me.email,
        me.isOperator,
        me.mustChangePassword,
        me.serviceAccountId,
      ),
    );
  });

  app.post("/me/quick-start/dismiss", anySession, async (c) => {
    await dismissQuickStart(db, clock, c.get("portalUser").userId);
    return c.body(null, 204);
  });

  app.post("/me/password", anySession, async (c) => {
    const me = c.get("portalUser");
    const body = await readJson(c, passwordBody);
    const address = clientAddress(c);
    await changePasswordThrottled(db, clock, {
      userId: me.userId,
      ...body,
      ...(address ? { clientAddress: address } : {}),
    });
    // Other sessions (perhaps a thief's) end; this one continues.
    await deleteUserSessions(db, me.userId, me.sessionId);
    return c.json(await describeMe(me.userId, me.email, me.isOperator, false, me.serviceAccountId));
  });

  return app;
}
