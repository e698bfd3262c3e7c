#!/usr/bin/env bash
# Queues the shards as a job array and the merge after all of them succeeded.
#   deploy/slurm/submit.sh            (settings as in tournament.sbatch)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The merge needs the array's size: read it from the `#SBATCH --array=0-N` line.
last=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\).*/\1/p' "$here/tournament.sbatch")
array=$(sbatch --parsable "$here/tournament.sbatch")
echo "shards: job array $array ($((last + 1)) tasks)"
merge=$(sbatch --parsable --dependency="afterok:$array" --export="ALL,SHARDS=$((last + 1))" \
    "$here/merge.sbatch")
echo "merge: job $merge (runs when every shard succeeded)"
