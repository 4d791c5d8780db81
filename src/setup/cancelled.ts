// The wizard's "cancelled" error on its own, so the CLI can recognise it without loading the
// wizard and its prompt library on every start (`svc serve` never asks anything).
export class SetupCancelled extends Error {
  override name = "SetupCancelled";
}
