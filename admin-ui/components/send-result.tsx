import type { OneOffSendView } from "../types.ts";
import { formatDurationMs } from "./format.ts";
import { Notice } from "./ui.tsx";

/** What the receiver answered to a test or verification send: status code and time. */
export function SendResult(props: { result: OneOffSendView }) {
  const { result } = props;
  const what = result.type === "webhook.test" ? "Test event" : "Verification code";
  const answer = result.statusCode === null ? "no answer" : `HTTP ${result.statusCode}`;
  return (
    <Notice kind={result.ok ? "success" : "error"}>
      <span data-testid="send-result">
        {what} {result.ok ? "delivered" : "not delivered"}: <strong>{answer}</strong> in{" "}
        <strong>{formatDurationMs(result.responseTimeMs)}</strong>
      </span>
      {!result.ok && result.error && (
        <span class="block small">
          {result.errorClass}: {result.error}
        </span>
      )}
    </Notice>
  );
}
