// The endpoint's last 24 h at a glance: attempts per hour, succeeded and failed, as
// plain SVG bars (no canvas). A screen reader reads the figure's summary (role="img" with an
// aria-label) and can open the same numbers as a table.
import { useEffect, useRef } from "preact/hooks";
import type { DeliveryStats, HourBucket } from "../../src/webhooks/delivery-log/stats.ts";
import { useResource } from "../use-resource.ts";
import { exactUtc, localHour } from "./format.ts";
import { ErrorNotice } from "./ui.tsx";

const width = 480;
const height = 120;
const axis = 1;

function chartSummary(buckets: HourBucket[]): string {
  const succeeded = buckets.reduce((n, b) => n + b.succeeded, 0);
  const failed = buckets.reduce((n, b) => n + b.failed, 0);
  const base = `Last ${buckets.length} hours: ${succeeded} successful and ${failed} failed attempts`;
  if (failed === 0) return `${base}.`;
  const worst = buckets.reduce((a, b) => (b.failed > a.failed ? b : a));
  return `${base}; most failures (${worst.failed}) in the hour from ${localHour(worst.hourStart)}.`;
}

function Bars(props: { buckets: HourBucket[] }) {
  const { buckets } = props;
  const max = Math.max(1, ...buckets.map((b) => b.succeeded + b.failed));
  const slot = width / buckets.length;
  const barWidth = Math.max(2, slot - 3);
  const scale = (n: number) => (n / max) * (height - axis - 4);
  return (
    <>
      {buckets.map((b, i) => {
        const x = i * slot + (slot - barWidth) / 2;
        const ok = scale(b.succeeded);
        const bad = scale(b.failed);
        const base = height - axis;
        return (
          <g>
            {ok > 0 && <rect class="bar-ok" x={x} y={base - ok} width={barWidth} height={ok} />}
            {bad > 0 && (
              <rect class="bar-failed" x={x} y={base - ok - bad} width={barWidth} height={bad} />
            )}
          </g>
        );
      })}
      <line
        class="chart-axis"
        x1={0}
        x2={width}
        y1={height - axis}
        y2={height - axis}
        vector-effect="non-scaling-stroke"
      />
    </>
  );
}

export function DeliveryChart(props: { endpointId: string; version: number }) {
  const stats = useResource<DeliveryStats>(
    `/endpoints/${props.endpointId}/delivery-stats?hours=24`,
  );
  // The page bumps `version` every few seconds; hourly counts need reloading once a minute.
  const loadedAt = useRef(Date.now());
  useEffect(() => {
    if (props.version === 0 || Date.now() - loadedAt.current < 60_000) return;
    loadedAt.current = Date.now();
    void stats.reload();
  }, [props.version]);
  const buckets = stats.data?.buckets;
  return (
    <figure class="delivery-chart" data-testid="delivery-chart">
      <figcaption>
        <strong>Last 24 hours</strong>{" "}
        <span class="small muted">
          <span class="legend legend-ok" aria-hidden="true" /> succeeded{" "}
          <span class="legend legend-failed" aria-hidden="true" /> failed attempts per hour
        </span>
      </figcaption>
      <ErrorNotice error={stats.error} />
      {buckets && (
        <>
          <svg
            viewBox={`0 0 ${width} ${height}`}
            preserveAspectRatio="none"
            role="img"
            aria-label={chartSummary(buckets)}
            data-testid="delivery-chart-svg"
          >
            <Bars buckets={buckets} />
          </svg>
          {/* Hour marks as text, so they keep their size whatever the chart's width. */}
          <div class="chart-hours small muted" aria-hidden="true">
            <span>{localHour(buckets[0]?.hourStart ?? "")}</span>
            <span>{localHour(buckets[Math.floor(buckets.length / 2)]?.hourStart ?? "")}</span>
            <span>{localHour(buckets.at(-1)?.hourStart ?? "")}</span>
          </div>
          <details class="chart-table">
            <summary>Show as a table</summary>
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Attempts per hour, last 24 hours</caption>
                <thead>
                  <tr>
                    <th scope="col">Hour from</th>
                    <th scope="col">Succeeded</th>
                    <th scope="col">Failed</th>
                  </tr>
                </thead>
                <tbody>
                  {buckets.map((b) => (
                    <tr>
                      <th scope="row">
                        <time dateTime={b.hourStart} title={exactUtc(b.hourStart)}>
                          {localHour(b.hourStart)}
                        </time>
                      </th>
                      <td class="num">{b.succeeded}</td>
                      <td class="num">{b.failed}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </figure>
  );
}
