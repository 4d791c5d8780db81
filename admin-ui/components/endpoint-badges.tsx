import type { EndpointView } from "../types.ts";
import { Badge } from "./ui.tsx";

/**
 * unverified / active / paused / disabled, as the spec's states (section 3). A new endpoint
 * is "unverified" until its code is entered; "active" means account events flow to it.
 */
export function EndpointBadges(props: { endpoint: EndpointView }) {
  const { endpoint } = props;
  return (
    <span class="badges" data-testid="endpoint-state">
      {!endpoint.verified && <Badge tone="warn">unverified</Badge>}
      {endpoint.verified && endpoint.status === "active" && <Badge tone="good">active</Badge>}
      {endpoint.status === "paused" && <Badge tone="neutral">paused</Badge>}
      {endpoint.status === "disabled" && <Badge tone="bad">disabled</Badge>}
    </span>
  );
}

export function failureText(endpoint: EndpointView): string {
  return endpoint.failureCount === 0
    ? "No failed deliveries in a row"
    : `${endpoint.failureCount} failed deliveries in a row (disabled at 20)`;
}
