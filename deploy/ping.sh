#!/usr/bin/env bash
# Health probe for a serving yomi: sends one `ping` over the JSON-lines protocol and exits 0 when
# the server answers `pong` in time. Used by the image's HEALTHCHECK and the Kubernetes probes.
#   yomi-ping [HOST:PORT]     (default 127.0.0.1:$YOMI_PORT, else 127.0.0.1:7878)
set -euo pipefail
addr=${1:-127.0.0.1:${YOMI_PORT:-7878}}
host=${addr%:*}
port=${addr##*:}
exec 3<>"/dev/tcp/$host/$port"
printf '{"id":"probe","op":"ping"}\n' >&3
IFS= read -r -t "${YOMI_PROBE_TIMEOUT:-2}" reply <&3
[[ $reply == *'"pong":true'* ]]
