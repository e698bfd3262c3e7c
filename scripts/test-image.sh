#!/usr/bin/env bash
# Builds the image (scripts/build-image.sh) and runs it as the deployment files do, with podman
# and runc from Debian's packages (scripts/deploy-args.py reads the files; their ports are moved
# to free ones of the host network). First deploy/compose.yaml's service (tokens from the
# environment, the data directory a named volume, read-only root, no capabilities); as clients:
#  - a request without a token is refused (`unauthorized`), and the probe (yomi-ping) answers;
#  - over TCP and over the WebSocket: `hello` (this build's version and build, protocol 1),
#    `agent.act`, a short match, and over TCP a short tournament (scripts/smoke-client.mjs);
#  - the service's health check passes inside the container; the server runs as uid 10001;
#  - SIGTERM (podman stop) ends it cleanly: exit status 0, "shutting down" in its log.
# Then deploy/k8s/server.yaml's Deployment (its user, security settings, token files from a
# Secret's directory, args) on the same volume: its probes' GET /healthz answers, the operator
# token lists the tournament the first container recorded, and SIGTERM ends it cleanly.
# Where no container can start here, it says why and checks the image's root file system instead:
# the same server, from that file system under chroot as uid 10001, with the same clients (also
# with YOMI_IMAGE_CHECK=rootfs).
#
# podman runs with `--runtime /usr/bin/runc --ulimit nofile=4096:4096 --ulimit nproc=4096:4096
# --network host`: on a machine like CI's (cgroups v1 in hybrid mode), crun refuses to start a
# container ("setrlimit RLIMIT_NOFILE", then "cgroups in hybrid mode not supported"), runc starts
# one only with explicit rlimits, and no CNI network plugins are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
use_release_binary
work="$PWD/target/image"
bash scripts/build-image.sh
image=$(sed -n 's/^image //p' "$work/build.txt")
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
build=$("$YOMI_BIN" --version | grep -oP 'build \K[^)]+')

export YOMI_TOKEN YOMI_OPERATOR_TOKEN
YOMI_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
YOMI_OPERATOR_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
tcp=$(free_port) http=$(free_port)
name="yomi-image-test-$$"
volume="yomi-image-test-$$"
podman_run=(podman --runtime /usr/bin/runc run --ulimit nofile=4096:4096 --ulimit nproc=4096:4096
  --network host)
serve_args=(serve --tcp "0.0.0.0:$tcp" --http "0.0.0.0:$http")

cleanup() {
  podman rm -f "$name" "$name-2" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Waits until the server answers the probe; $1 says what to show when it never does.
wait_until_serving() {
  for _ in $(seq 100); do
    if bash deploy/ping.sh "127.0.0.1:$tcp" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "the server never answered on 127.0.0.1:$tcp" >&2
  eval "$1" >&2 || true
  return 1
}

# The clients' checks, against a server on $tcp and $http.
check_as_client() {
  local refused
  refused=$(exec 3<>"/dev/tcp/127.0.0.1/$tcp"; printf '{"id":1,"op":"catalog"}\n' >&3; head -1 <&3)
  [[ $refused == *'"code":"unauthorized"'* ]] || { echo "a request without a token got: $refused"; exit 1; }
  echo "  without a token: unauthorized; yomi-ping: $(bash deploy/ping.sh "127.0.0.1:$tcp" && echo pong)"
  node scripts/smoke-client.mjs "tcp://127.0.0.1:$tcp" "$version" "$build" --tournament image-cup
  node --experimental-websocket --no-warnings scripts/smoke-client.mjs "ws://127.0.0.1:$http/ws" "$version" "$build"
}

# A field of the JSON that scripts/deploy-args.py printed into $1: one list item a line.
field() {
  python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print("\n".join(map(str, v)) if isinstance(v, list) else v)' "$1" "$2"
}

# Runs the container of a deployment file: $1 compose|k8s, $2 its name, then deploy-args.py's
# own arguments after the kind. Checks that the file names the image just built.
start_from_file() {
  local kind=$1 container=$2 spec="$work/$1.json"
  shift 2
  python3 scripts/deploy-args.py "$kind" "$@" > "$spec"
  [[ $(field "$spec" image) == "$image" ]] || { echo "$1 names $(field "$spec" image), not $image"; exit 1; }
  local options args
  mapfile -t options < <(field "$spec" options)
  mapfile -t args < <(field "$spec" args)
  "${podman_run[@]}" -d --name "$container" "${options[@]}" "$image" "${args[@]}" >/dev/null
  wait_until_serving "podman logs $container"
}

# Stops container $1 with SIGTERM and checks that it exits 0, saying it shuts down.
stop_cleanly() {
  podman stop --time 10 "$1" >/dev/null
  local status
  status=$(podman inspect --format '{{.State.ExitCode}}' "$1")
  podman logs "$1" 2>&1 | grep -q "shutting down" || { echo "no shutdown in the log:"; podman logs "$1"; exit 1; }
  [[ $status == 0 ]] || { echo "after SIGTERM the server exited with $status"; podman logs "$1"; exit 1; }
  echo "  SIGTERM: exit status 0, the log says shutting down"
}

run_container() {
  echo "== deploy/compose.yaml's service under podman (runc): $image"
  start_from_file compose "$name" deploy/compose.yaml "7878=$tcp,8080=$http" "$volume"
  check_as_client
  local health pid uid
  mapfile -t health < <(field "$work/compose.json" health)
  podman exec "$name" "${health[@]}" || { echo "the health check (${health[*]}) failed"; exit 1; }
  echo "  health check in the container (${health[*]}): ok"
  pid=$(podman inspect --format '{{.State.Pid}}' "$name")
  uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
  [[ $uid == 10001 ]] || { echo "the server runs as uid $uid"; exit 1; }
  echo "  the server runs as uid $uid"
  stop_cleanly "$name"

  echo "== deploy/k8s/server.yaml's Deployment under podman, on the same data volume"
  local secrets="$work/secrets" metrics
  metrics=$(free_port)
  rm -rf "$secrets" && mkdir -p "$secrets"
  echo "$YOMI_TOKEN" > "$secrets/player-token"
  echo "$YOMI_OPERATOR_TOKEN" > "$secrets/operator-token"
  chgrp -R 10001 "$secrets" && chmod 0750 "$secrets" && chmod 0440 "$secrets"/*
  start_from_file k8s "$name-2" deploy/k8s/server.yaml "7878=$tcp,8080=$http,9090=$metrics" "$volume" "$secrets"
  local probe
  while IFS=' ' read -r probe path port; do
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=3)' \
        "http://127.0.0.1:$port$path" || { echo "$probe GET $path on $port failed"; exit 1; }
    echo "  $probe: GET $path on the http port: 200"
  done < <(python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["probes"]: print(p["probe"], p["path"], p["port"])' "$work/k8s.json")
  YOMI_TOKEN=$YOMI_OPERATOR_TOKEN node scripts/smoke-client.mjs "tcp://127.0.0.1:$tcp" "$version" "$build" --listed image-cup
  stop_cleanly "$name-2"
}

# The fallback: the image's root file system, as the image runs it, under chroot.
run_rootfs() {
  local rootfs="$work/rootfs" data="$work/rootfs/var/lib/yomi"
  echo "== the image's root file system under chroot (uid 10001): $rootfs"
  mountpoint -q "$rootfs/proc" || { mkdir -p "$rootfs/proc" && mount -t proc proc "$rootfs/proc"; }
  trap 'umount "$work/rootfs/proc" 2>/dev/null || true; cleanup' EXIT
  rm -rf "${data:?}"/* && chown 10001:10001 "$data"
  # The image's environment, set by the image's own env.
  chroot --userspec=10001:10001 "$rootfs" /usr/bin/env -i PATH=/opt/yomi:/usr/bin:/bin \
    YOMI_DATA_DIR=/var/lib/yomi YOMI_TOKEN="$YOMI_TOKEN" YOMI_OPERATOR_TOKEN="$YOMI_OPERATOR_TOKEN" \
    /opt/yomi/yomi "${serve_args[@]}" 2>"$work/rootfs.log" &
  local pid=$!
  wait_until_serving "cat $work/rootfs.log"
  check_as_client
  kill -TERM "$pid"
  local status=0
  wait "$pid" || status=$?
  grep -q "shutting down" "$work/rootfs.log" && [[ $status == 0 ]] \
    || { echo "after SIGTERM: status $status"; cat "$work/rootfs.log"; exit 1; }
  echo "  SIGTERM: exit status 0, the log says shutting down"
}

# Whether a container starts at all here; if not, why. YOMI_IMAGE_CHECK=rootfs checks the root
# file system even where containers run.
if [[ ${YOMI_IMAGE_CHECK:-} == rootfs ]]; then
  run_rootfs
elif why=$("${podman_run[@]}" --rm "$image" --version 2>&1); then
  run_container
else
  echo "NOTE: no container starts on this machine, so the image's root file system is checked instead:"
  echo "$why" | grep -v 'CNI config' | sed 's/^/  /'
  run_rootfs
fi
echo "image: $(sed -n 's/^image_bytes //p' "$work/build.txt") bytes, built in $(sed -n 's/^build_seconds //p' "$work/build.txt") s"
