// The shape of a background job of `svc serve` (the dispatcher, the schedulers, the mail sender),
// in a module of its own so the jobs and the runtime that starts them do not import each other.

/** A background job that can be asked to finish. */
export interface BackgroundJob {
  name: string;
  stop(): Promise<void>;
}
