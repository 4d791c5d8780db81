// The event catalog's data schemas built with zod: the ones the event writer validates with and
// the reference converts. Apart from the catalog (webhooks/events/types.ts) so the portal, which imports
// the catalog, bundles no zod.
import { z } from "zod";
import { type EventDataSchema, type EventType, eventCatalog, eventTypes } from "./types.ts";

export const eventDataSchemas = Object.fromEntries(
  eventTypes.map((type) => [type, eventCatalog[type].data(z)]),
) as { [T in EventType]: EventDataSchema<T> };
