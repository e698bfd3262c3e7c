#!/usr/bin/env bash
# The web side of yomi against the real release binary: the JavaScript client (node --test, over
# TCP, WebSocket and stdio), the Python client (pytest, installed from PyPI into a private venv)
# and the playground in headless Chromium (Debian's package, driven by playwright-core from npm).
# Installs what it needs; skips only the browser test, saying so, when no Chromium can be had.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
use_release_binary
work="$PWD/target/web-test"
mkdir -p "$work"

echo "== JavaScript client (node --test)"
node --experimental-websocket --test clients/js/test/

echo "== Python client (pytest)"
client_venv "$work/venv" "test"
(cd clients/python && "$work/venv/bin/pytest" -q -p no:cacheprovider)

echo "== Playground in headless Chromium"
export CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
if [[ -z "$CHROMIUM" ]] && command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
  echo "installing Debian's chromium with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium) >"$work/apt.log" 2>&1 \
    || echo "apt-get could not install chromium (see $work/apt.log)"
  CHROMIUM="$(command -v chromium || true)"
fi
if [[ -z "$CHROMIUM" ]]; then
  echo "SKIPPED: the browser test of the playground: no Chromium on this machine and none could be installed"
  exit 0
fi
(cd clients/js && npm ci --no-audit --no-fund --loglevel=error)
export YOMI_WEB_ARTIFACTS="$PWD/target/web-artifacts"
(cd clients/js && node --test test-browser/)
echo "screenshots: $YOMI_WEB_ARTIFACTS/playground-{battle,stud,sevens,rps,dice,roles,services,tournament}.png and view-<game or tab>-{1280,390}.png"
