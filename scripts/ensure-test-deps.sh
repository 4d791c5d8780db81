#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, from Debian's apt, when missing:
# chromium (portal end-to-end tests drive it with playwright-core; no browser download ever),
# curl and jq (the docs' examples are executed by tests), openssl (test CAs, the docs' signature
# check) and systemd (systemd-analyze verifies deploy/svc.service). Idempotent and quick when
# present.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing test dependencies: ${missing[*]}" >&2
run_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 1; fi
}
export DEBIAN_FRONTEND=noninteractive
run_root apt-get update -qq
run_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
