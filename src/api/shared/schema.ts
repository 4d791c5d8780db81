// The shapes every /v1 resource builds on (spec 2): ids, money, currencies, dates and the page
// cursor. Each resource's own shapes live in its folder (<resource>/schema.ts); the OpenAPI
// document is generated from them and the tests validate real responses against that document.
import { z } from "@hono/zod-openapi";

export const idSchema = z.guid().openapi({
  description: "A UUID.",
  example: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
});

export const moneySchema = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .openapi({
    description: "A signed decimal string (never a float); positive = money in.",
    example: "-42.50",
  });

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .openapi({ description: "ISO 4217 currency code.", example: "EUR" });

export const timestampSchema = z.iso.datetime().openapi({
  description: "RFC 3339 timestamp in UTC with milliseconds.",
  example: "2026-01-15T09:00:00.000Z",
});

export const dateSchema = z.iso.date().openapi({
  description: "A calendar date, YYYY-MM-DD.",
  example: "2026-01-15",
});

export const nextCursorSchema = z.string().nullable().openapi({
  description:
    "Pass as `cursor` to get the next page; null on the last page. Opaque: do not build or edit it.",
  example: null,
});
