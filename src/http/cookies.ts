// The session cookie: HttpOnly, SameSite=Strict, Secure (with the __Host- prefix) when the
// base URL is https.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";

export interface SessionCookie {
  name: string;
  read(c: Context): string | undefined;
  write(c: Context, token: string, expiresAt: Date): void;
  clear(c: Context): void;
}

/** Options of a host-only HttpOnly cookie for the whole site (the __Host- prefix needs them). */
export function siteCookieOptions(secure: boolean, sameSite: "Strict" | "Lax", expires: Date) {
  return { httpOnly: true, sameSite, secure, path: "/", expires };
}

export function sessionCookie(baseUrl: string): SessionCookie {
  const secure = new URL(baseUrl).protocol === "https:";
  const name = secure ? "__Host-svc_session" : "svc_session";
  return {
    name,
    read: (c) => getCookie(c, name),
    write(c, token, expiresAt) {
      setCookie(c, name, token, siteCookieOptions(secure, "Strict", expiresAt));
    },
    clear(c) {
      deleteCookie(c, name, { path: "/", secure });
    },
  };
}
