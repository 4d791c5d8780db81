# Multi-stage: build the single executable, then run it as a non-root user with /data as a volume.
FROM oven/bun:1.4.5 AS build
WORKDIR /src
COPY package.json bun.lock bunfig.toml ./
# The workspace's manifest too: the lockfile names it (clients/typescript, the typed client).
COPY clients/typescript/package.json clients/typescript/
RUN bun install --frozen-lockfile
COPY . .
RUN bun run build

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin svc \
 && mkdir -p /data && chown svc:svc /data && chmod 0700 /data
COPY --from=build /src/dist/svc /usr/local/bin/svc
USER svc
ENV SVC_DATA_DIR=/data \
    SVC_HOST=0.0.0.0 \
    SVC_PORT=8080
VOLUME ["/data"]
EXPOSE 8080
# The image has no curl: the binary asks its own server for /healthz (`svc health`, which reads
# SVC_HOST/SVC_PORT; exit 0 when alive). `svc health --ready` would also check the database.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/svc", "health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["serve"]
