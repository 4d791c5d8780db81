#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, from Debian's apt, when missing:
# chromium (portal end-to-end tests drive it with playwright-core; no browser download ever),
# curl and jq (the docs' examples are executed by tests), python3 (the receiver kit's Python
# verifier is run by test/receiver-kit/python.test.ts), openssl (test CAs, the docs' signature
# check), systemd (systemd-analyze verifies deploy/svc.service) and a PostgreSQL server for the
# storage suites' second run (below). Idempotent and quick when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

run_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "need root (or sudo) to run: $*" >&2; exit 1; fi
}
apt_install() {
  echo "installing test dependencies: $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  run_root apt-get update -qq
  run_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

# PostgreSQL (SVC_TEST_ENGINE=postgres): SVC_TEST_POSTGRES_URL when set; else a server answering
# on 127.0.0.1:5432 (trust auth, user postgres, as on our machines); else a throwaway cluster of
# Debian's postgresql, started here on port 54329, whose URL goes into .test-postgres-url for the
# tests (test/support/engine.ts). Never skipped silently: the tests fail with a clear message
# when no server answers.
answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
[ -z "${SVC_TEST_POSTGRES_URL:-}" ] || exit 0
if answers 127.0.0.1 5432; then
  rm -f .test-postgres-url
  exit 0
fi
cluster=/tmp/svc-test-postgres
port=54329
url="postgres://postgres@127.0.0.1:$port/postgres"
if ! answers 127.0.0.1 "$port"; then
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ]; then
    apt_install postgresql
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  # initdb and the server refuse to run as root.
  as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
  if [ ! -f "$cluster/PG_VERSION" ]; then
    mkdir -p "$cluster"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$cluster"; fi
    as_postgres "$bin/initdb" -D "$cluster" -A trust -U postgres >/dev/null
  fi
  as_postgres "$bin/pg_ctl" -D "$cluster" -l "$cluster/server.log" -w \
    -o "-p $port -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
fi
echo "$url" > .test-postgres-url
