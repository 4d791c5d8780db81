import type { MiddlewareHandler } from "hono";
import { randomBase64Url } from "../crypto/tokens.ts";
import { requestIdHeader } from "./errors.ts";

declare module "hono" {
  interface ContextVariableMap {
    requestId: string;
  }
}

/** Gives every request an id (never taken from the client) on the response and in the logs. */
export function requestIdMiddleware(): MiddlewareHandler {
  return async (c, next) => {
    const requestId = `req_${randomBase64Url(12)}`;
    c.set("requestId", requestId);
    c.header(requestIdHeader, requestId);
    await next();
  };
}
