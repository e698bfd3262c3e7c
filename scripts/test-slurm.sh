#!/usr/bin/env bash
# Runs deploy/slurm for real: brings up a one-node Slurm cluster on this machine (Debian's
# slurmctld, slurmd and munge, installed with apt-get when missing; needs root), submits the
# tournament's job array and its merge with deploy/slurm/submit.sh, waits for both, checks the
# merged standings equal the same tournament played in one process, and takes the cluster down.
# Bounded in time: gives up after SLURM_TEST_SECONDS (default 600).
# Needs the release build: `cargo build --release --workspace` first (.ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export YOMI=${YOMI:-$root/target/release/yomi}
[[ -x $YOMI ]] || { echo "test-slurm: $YOMI is missing; build first" >&2; exit 1; }
if [[ $(id -u) != 0 ]]; then
    echo "test-slurm: skipped: a one-node cluster needs root (slurmd runs jobs as their user)"
    exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "test-slurm: installing slurmctld, slurmd, slurm-client and munge from Debian"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

work=$(mktemp -d)
pids=()
cleanup() {
    scancel --quiet --full "--user=$(id -un)" 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    # The daemons are not this shell's children: wait for them to be gone before removing
    # the state they write into.
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$work"
}
trap cleanup EXIT
deadline=$((SECONDS + ${SLURM_TEST_SECONDS:-600}))

# munge: a fresh key of this run's own, a socket in the work directory.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed"
pids+=("$(cat "$work/munge/munged.pid")")

# One node: this machine, every core, scheduling by core and memory.
node=$(hostname -s)
cpus=$(nproc)
memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512))
mkdir -p "$work/spool" "$work/state"
cat >"$work/slurm.conf" <<EOF
ClusterName=yomi-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -c -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
    [[ -s $work/slurmctld.pid && -s $work/slurmd.pid ]] && break
    sleep 0.1
done
pids+=("$(cat "$work/slurmctld.pid")" "$(cat "$work/slurmd.pid")")
until sinfo --noheader --states=idle --format=%n 2>/dev/null | grep -qx "$node"; do
    if ((SECONDS > deadline)); then
        echo "test-slurm: FAILED: the node never became idle" >&2
        tail -20 "$work/slurmctld.log" "$work/slurmd.log" >&2
        exit 1
    fi
    sleep 0.5
done
echo "test-slurm: one-node cluster up ($node, $cpus cores)"

# The tournament of deploy/slurm, with few games, from a shared directory.
export YOMI_CUP_DIR=$work/cup GAMES_PER_PAIR=${GAMES_PER_PAIR:-6} YOMI_LOG=error
mkdir -p "$YOMI_CUP_DIR"
(cd "$work" && "$root/deploy/slurm/submit.sh")
while [[ -n $(squeue --noheader --format=%i 2>/dev/null) ]]; do
    if ((SECONDS > deadline)); then
        echo "test-slurm: FAILED: jobs still queued or running at the time limit" >&2
        squeue >&2 || true
        tail -20 "$work/slurmctld.log" >&2
        exit 1
    fi
    sleep 1
done
merged=$(ls "$work"/yomi-cup-merge-*.log)
if ! grep -q '"status"' "$merged"; then
    echo "test-slurm: FAILED: the merge job printed no standings" >&2
    cat "$work"/yomi-cup-*.log >&2
    exit 1
fi

# The same tournament in one process: the standings must be the same.
one=$("$YOMI" --data-dir "$work/one" tournament --id cup --game sevens --seats 3 \
    --bot sevens/dvalue --bot sevens/student --bot sevens/random --bot sevens/greedy \
    --games-per-pair "$GAMES_PER_PAIR" --seed 1 --json)
python3 - "$merged" "$(ls -d "$YOMI_CUP_DIR"/shard-* | wc -l)" <<PY
import json, sys
text = open(sys.argv[1]).read()
merged = json.loads(text[text.index("{"):])
one = json.loads('''$one''')
keys = ("standings", "pairings", "games", "scheduled", "status")
for key in keys:
    if merged[key] != one[key]:
        sys.exit(f"test-slurm: FAILED: {key} differ:\nslurm: {merged[key]}\none process: {one[key]}")
print(f"test-slurm: {merged['games']} games in {sys.argv[2]} shards under Slurm; merged standings equal one process's")
PY
