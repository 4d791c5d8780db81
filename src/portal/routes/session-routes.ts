import { Hono } from "hono";
import { z } from "zod";
import { changePasswordThrottled } from "../../accounts/password-change.ts";
import { maxPasswordLength } from "../../accounts/passwords.ts";
import { accountDisabledNotice, getServiceAccount } from "../../accounts/service-accounts.ts";
import {
  createSession,
  deleteSession,
  deleteUserSessions,
  resolveSession,
} from "../../accounts/sessions.ts";
import { signIn } from "../../accounts/sign-in.ts";
import { dismissQuickStart, quickStartShown } from "../../accounts/users.ts";
import { createClientAddressResolver } from "../../http/client-address.ts";
import type { SessionCookie } from "../../http/cookies.ts";
import { readJson } from "../../http/validate.ts";
import { requireSession } from "../auth.ts";
import type { PortalDeps } from "../deps.ts";

const signInBody = z.object({
  email: z.string().max(254),
  password: z.string().max(maxPasswordLength),
});

const passwordBody = z.object({
  // Optional only for the first change right after a one-time-password sign-in.
  currentPassword: z.string().max(maxPasswordLength).optional(),
  newPassword: z.string(),
});

/**
 * A session this young that signed in while the password was a one-time one has just typed it:
 * the first change does not ask for it again. Later, the current password is asked as usual.
 */
export const oneTimeSignInGraceMs = 30 * 60_000;

/** Sign-in, sign-out, who am I, and the password change (also for one-time passwords). */
export function sessionRoutes(services: PortalDeps, cookie: SessionCookie): Hono {
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

  // Whether this browser is signed in, answered 200 either way: the portal asks it at every
  // load, and a signed-out visitor's console should not show a refused request for it.
  app.get("/session", async (c) => {
    const token = cookie.read(c);
    const me = token ? await resolveSession(db, clock, token) : undefined;
    if (!me) return c.json({ signedIn: false });
    return c.json({
      signedIn: true,
      ...(await describeMe(
        me.userId,
        me.email,
        me.isOperator,
        me.mustChangePassword,
        me.serviceAccountId,
      )),
    });
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
      justSignedInWithOneTimePassword:
        me.mustChangePassword &&
        clock.now().getTime() - me.sessionCreatedAt.getTime() < oneTimeSignInGraceMs,
      ...(address ? { clientAddress: address } : {}),
    });
    // Other sessions (perhaps a thief's) end; this one continues.
    await deleteUserSessions(db, me.userId, me.sessionId);
    return c.json(await describeMe(me.userId, me.email, me.isOperator, false, me.serviceAccountId));
  });

  return app;
}
