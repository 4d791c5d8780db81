// The receiver kit as the portal shows it: each file of examples/receiver with what
// it is for. The texts are inlined at bundle time (read-at-build.ts is a macro).
import { receiverKitText } from "./read-at-build.ts" with { type: "macro" };

export interface ReceiverKitFile {
  /** Path inside examples/receiver, e.g. "python/svc_webhooks.py". */
  path: string;
  /** The name a download is saved under. */
  fileName: string;
  about: string;
  runsOn: string;
  text: string;
}

export const receiverKitFiles: ReceiverKitFile[] = [
  {
    path: "verify.ts",
    fileName: "verify.ts",
    about:
      "verifyWebhook(): checks the signature over the raw bytes, the timestamp and the event id. No dependencies besides node:crypto. Copy this one if you only need verification.",
    runsOn: "Bun, Node.js 18+",
    text: receiverKitText("verify.ts"),
  },
  {
    path: "python/svc_webhooks.py",
    fileName: "svc_webhooks.py",
    about:
      "verify(): the same rules in Python, standard library only, with the same verdicts and reason words as verify.ts.",
    runsOn: "Python 3.8+",
    text: receiverKitText("python/svc_webhooks.py"),
  },
  {
    path: "store.ts",
    fileName: "store.ts",
    about:
      "openReceiverStore(): the receiver's SQLite database: the inbox that de-duplicates events and queues the work, the stored transactions and where each account's last read ended.",
    runsOn: "Bun (bun:sqlite)",
    text: receiverKitText("store.ts"),
  },
  {
    path: "receiver.ts",
    fileName: "receiver.ts",
    about:
      "createReceiver(): an HTTP handler that verifies, records and answers at once, and a worker that reads /v1 afterwards. Runnable as a program (needs store.ts and verify.ts next to it).",
    runsOn: "Bun",
    text: receiverKitText("receiver.ts"),
  },
  {
    path: "README.md",
    fileName: "README.md",
    about:
      "The kit's guide: the receiver rules and where each is kept, what the example receiver does with each event, how to run it and how to copy it into your application.",
    runsOn: "Markdown",
    text: receiverKitText("README.md"),
  },
];
