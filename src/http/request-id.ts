import type { MiddlewareHandler } from "hono";
import { requestIdHeader } from "../core/errors.ts";
import { randomBase64Url } from "../crypto/tokens.ts";

declare module "hono" {
  interface ContextVariableMap {
    requestId: string;
  }
}

/** Issues the id of each request (never taken from the client), shown in Svc-Request-Id. */
export interface RequestIds {
  next(): string;
}

/**
 * Ids only need to be unique, not secret: a random per-process prefix and a counter, which
 * keeps the CSPRNG off the hot path. One source per app, shared by every path that answers.
 */
export function createRequestIds(): RequestIds {
  const prefix = randomBase64Url(6);
  // Counting from 36^7 gives 8 base-36 digits without padding, for 2.7 trillion requests.
  let counter = 36 ** 7;
  return {
    next() {
      counter += 1;
      return `req_${prefix}${counter.toString(36)}`;
    },
  };
}

/** Gives every request an id on the response and in the logs. */
export function requestIdMiddleware(ids: RequestIds): MiddlewareHandler {
  return async (c, next) => {
    const requestId = ids.next();
    c.set("requestId", requestId);
    c.header(requestIdHeader, requestId);
    await next();
  };
}
