/**
 * Every resource id is a UUID v7: random, but ordered by creation time (monotonic within a
 * process), so lists can order rows of the same millisecond by id, on any engine.
 */
export function newId(): string {
  return Bun.randomUUIDv7();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
