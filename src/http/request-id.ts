import type { MiddlewareHandler } from "hono";
import { randomBase64Url } from "../crypto/tokens.ts";
import { requestIdHeader } from "./errors.ts";

declare module "hono" {
  interface ContextVariableMap {
    requestId: string;
  }
}

/**
 * Gives every request an id (never taken from the client) on the response and in the logs.
 * Ids only need to be unique, not secret: a random per-process prefix and a counter, which
 * keeps the CSPRNG off the hot path.
 */
export function requestIdMiddleware(): MiddlewareHandler {
  const prefix = randomBase64Url(6);
  let counter = 0;
  return async (c, next) => {
    counter += 1;
    const requestId = `req_${prefix}${counter.toString(36).padStart(8, "0")}`;
    c.set("requestId", requestId);
    c.header(requestIdHeader, requestId);
    await next();
  };
}
