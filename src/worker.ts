// The shape of a background worker of `svc serve`, in a module of its own so the workers and the
// runtime that starts them do not import each other.

/** A background worker (dispatcher, schedulers, mail sender) that can be asked to finish. */
export interface Worker {
  name: string;
  stop(): Promise<void>;
}
