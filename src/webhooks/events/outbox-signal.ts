// Wakes the dispatcher at once when events are committed (a new event's first attempt
// starts at once, not at the next poll). In this process by a direct call; across processes and
// instances through a relay when the engine has one (PostgreSQL LISTEN/NOTIFY: outbox-relay.ts), so
// an event written by any instance or by the CLI starts its first attempt at once somewhere.
// Without a relay (SQLite) the dispatcher's one-second tick covers writers in other processes.

/** Carries "deliveries were committed" between processes. */
export interface OutboxRelay {
  /** Tells every other process (fire and forget; a lost notice waits for the next tick). */
  publish(): void;
  /** Starts hearing other processes' notices; resolves with a function that stops it. */
  listen(onNotice: () => void): Promise<() => Promise<void>>;
}

export interface OutboxSignal {
  /** Call after the transaction that wrote deliveries has committed. */
  notify(): void;
  /**
   * Resolves with a function that stops listening; it settles once the relay has stopped too
   * (the last listener out ends the relay's LISTEN), so a caller that closes the database
   * afterwards never leaves a connection retrying against it.
   */
  subscribe(listener: () => void): () => Promise<void>;
}

export function createOutboxSignal(
  relay?: OutboxRelay,
  onRelayError?: (error: unknown) => void,
): OutboxSignal {
  const listeners = new Set<() => void>();
  const wake = () => {
    for (const listener of listeners) listener();
  };
  // Only processes with a listener (svc serve) hear the relay; the CLI only publishes.
  let stopListening: Promise<(() => Promise<void>) | undefined> | undefined;
  return {
    notify() {
      wake();
      relay?.publish();
    },
    subscribe(listener) {
      listeners.add(listener);
      if (relay && !stopListening) {
        stopListening = relay.listen(wake).catch((error: unknown) => {
          onRelayError?.(error);
          return undefined;
        });
      }
      return async () => {
        listeners.delete(listener);
        if (listeners.size > 0 || !stopListening) return;
        const stopping = stopListening;
        stopListening = undefined;
        await stopping.then((stop) => stop?.()).catch((error: unknown) => onRelayError?.(error));
      };
    },
  };
}
