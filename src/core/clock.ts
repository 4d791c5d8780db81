/** The one source of "now". Feature functions take a Clock so tests can move time by hand. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};
