// The link cookie: proof that a bank's callback comes back to the browser that started the
// link (spec 8 "Security"; docs/decisions.md "Bank links are bound to the browser"). The
// portal sets a random nonce when it starts a link; the link's state stores only its SHA-256.
// SameSite=Lax, not Strict like the session cookie: the bank sends the browser back with a
// top-level cross-site GET, which carries Lax cookies and never Strict ones. One nonce per
// browser, reused by every link it starts, so two links begun in two tabs both complete.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { randomBase64Url } from "../crypto/tokens.ts";
import { siteCookieOptions } from "../http/cookies.ts";

export interface LinkCookie {
  /** The browser's nonce, when it sent a well-formed one. */
  read(c: Context): string | undefined;
  /** The nonce to bind a new link to: the browser's own, or a fresh one. */
  nonceFor(c: Context): string;
  write(c: Context, nonce: string, expiresAt: Date): void;
}

export function linkCookie(baseUrl: string): LinkCookie {
  const secure = new URL(baseUrl).protocol === "https:";
  const name = secure ? "__Host-svc_link" : "svc_link";
  const read = (c: Context) => {
    const value = getCookie(c, name);
    return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  };
  return {
    read,
    nonceFor: (c) => read(c) ?? randomBase64Url(32),
    write(c, nonce, expiresAt) {
      setCookie(c, name, nonce, siteCookieOptions(secure, "Lax", expiresAt));
    },
  };
}
