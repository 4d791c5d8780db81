// A seeded pseudo-random generator for the sandbox bank: the same seed always yields the same
// bank (never Math.random). Streams are addressed by a path of numbers (seed, what, day...),
// so any day or time slot can be generated on its own without replaying the ones before it.

/** murmur3's 32-bit finaliser: spreads every input bit over the output. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashPath(path: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const part of path) {
    // Split each number into 32-bit halves so day and slot numbers beyond 2^32 still differ.
    h = fmix32(h ^ fmix32(part >>> 0));
    h = fmix32(h ^ fmix32(Math.floor(part / 2 ** 32) >>> 0));
  }
  return h;
}

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** mulberry32, seeded by the hash of `path`. */
export function randomStream(...path: number[]): Random {
  let state = hashPath(path);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
  };
}
