#!/usr/bin/env bash
# Debian packages the test suite needs: PostgreSQL (a real server for the store and service
# suites), Chromium (the viewer's browser tests) and tmux (the chat terminal test).
# Installs only what is missing; needs root (CI runs as root).
set -euo pipefail
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # Debian starts a cluster on install; tests use their own throwaway one.
  if command -v pg_ctlcluster >/dev/null 2>&1; then pg_ctlcluster --force 15 main stop 2>/dev/null || true; fi
fi
