// Wakes the dispatcher at once when events are committed (DESIGN.md: "wake up at once on a
// new event"); the dispatcher's one-second tick covers writers in other processes (the CLI).

export interface OutboxSignal {
  /** Call after the transaction that wrote deliveries has committed. */
  notify(): void;
  subscribe(listener: () => void): () => void;
}

export function createOutboxSignal(): OutboxSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
