#!/usr/bin/env bash
# Checks the deployment files in deploy/ as far as this machine can, without a cluster:
#  - the Kubernetes manifests parse (PyYAML, installed from PyPI if missing) and hang together
#    (probes on the health check of the server's own --http port, or a protocol ping without it;
#    Indexed Job size = --shards, the merge Job names every shard's directory);
#  - the Dockerfile builds every bot plugin of the workspace and runs as a non-root user;
#  - the probe command answers against a real `yomi serve`, and fails against nothing; the
#    Deployment's own arguments, run locally, serve /healthz and /metrics where its probes and
#    the Service's scrape annotations look, and refuse requests without the token;
#  - the server takes its tokens from a Secret (files of a secret volume, or secretKeyRef env);
#  - the Kubernetes Job's and the Slurm array's shard commands run locally (with few games), and
#    their merges give exactly the standings of the same tournament played in one process.
# Needs the release build: `cargo build --release --workspace` first (.ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."
export YOMI=${YOMI:-$PWD/target/release/yomi}
if [[ ! -x $YOMI ]]; then
    echo "check-deploy: $YOMI is missing; run cargo build --release --workspace first" >&2
    exit 1
fi
python3 -c 'import yaml' 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check 'PyYAML>=6,<7'
export YOMI_LOG=error
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CHECK_DIR=$work

python3 - <<'PY'
import json, os, re, socket, subprocess, sys, time, tomllib
from pathlib import Path

import yaml

yomi, work = os.environ["YOMI"], Path(os.environ["CHECK_DIR"])
checks = 0


def check(ok, what):
    global checks
    if not ok:
        sys.exit(f"check-deploy: FAILED: {what}")
    checks += 1


def run(args, env=None, **kw):
    out = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **(env or {})}, **kw)
    if out.returncode != 0:
        sys.exit(f"check-deploy: FAILED: {' '.join(map(str, args))}\n{out.stderr}")
    return out.stdout


def docs(path):
    return [d for d in yaml.safe_load_all(Path(path).read_text()) if d]


# --- Kubernetes manifests -------------------------------------------------------------------
server = {d["kind"]: d for d in docs("deploy/k8s/server.yaml")}
check(set(server) == {"Deployment", "Service"}, "server.yaml holds a Deployment and a Service")
pod = server["Deployment"]["spec"]["template"]["spec"]
container = pod["containers"][0]
check(pod["securityContext"]["runAsNonRoot"] is True, "the server runs as non-root")
ports = {p["name"] for p in container["ports"]}
port_numbers = {p["name"]: p["containerPort"] for p in container["ports"]}
args = container["args"]
http_port = int(args[args.index("--http") + 1].rsplit(":", 1)[1]) if "--http" in args else None
for probe in ("readinessProbe", "livenessProbe"):
    if http_port:
        get = container[probe].get("httpGet", {})
        check(get.get("path") == "/healthz" and port_numbers.get(get.get("port"), get.get("port")) == http_port,
              f"{probe} asks GET /healthz on the --http port")
    else:
        check(container[probe]["exec"]["command"][0] == "yomi-ping", f"{probe} sends a protocol ping")
annotations = server["Service"]["metadata"].get("annotations", {})
scrape_port = int(annotations.get("prometheus.io/port", 0))
check(scrape_port in port_numbers.values(), "Prometheus scrapes a port the container serves")
check({p["targetPort"] for p in server["Service"]["spec"]["ports"]} <= ports, "Service ports exist")
check(server["Service"]["spec"]["selector"] == server["Deployment"]["spec"]["selector"]["matchLabels"],
      "the Service selects the Deployment's pods")
# The tokens: files under a mount of a secret volume, or environment variables from a Secret.
secret_mounts = {m["mountPath"] for m in container.get("volumeMounts", [])
                 for v in pod.get("volumes", []) if v["name"] == m["name"] and "secret" in v}
token_files = {flag: args[args.index(flag) + 1] for flag in ("--token-file", "--operator-token-file")
               if flag in args}
secret_env = {e["name"] for e in container.get("env", []) if "secretKeyRef" in e.get("valueFrom", {})}
check(token_files or secret_env & {"YOMI_TOKEN", "YOMI_OPERATOR_TOKEN"}, "the server is given a token")
check(all(any(f.startswith(m + "/") for m in secret_mounts) for f in token_files.values()),
      "every token file lies in a Secret's volume")

jobs = {d["metadata"]["name"]: d for d in docs("deploy/k8s/tournament-shards.yaml") if d["kind"] == "Job"}
shards_job, merge_job = jobs["yomi-cup-shards"], jobs["yomi-cup-merge"]
check(shards_job["spec"]["completionMode"] == "Indexed", "the shard Job is an Indexed Job")
n = shards_job["spec"]["completions"]
shard_args = shards_job["spec"]["template"]["spec"]["containers"][0]["args"]
check(shard_args[shard_args.index("--shards") + 1] == str(n), "--shards equals the Job's completions")
merge_args = merge_job["spec"]["template"]["spec"]["containers"][0]["args"]
check(merge_job["spec"]["suspend"] is True, "the merge Job waits (suspended) for the shards")

# --- Dockerfile -------------------------------------------------------------------------------
dockerfile = Path("deploy/Dockerfile").read_text()
check(len(re.findall(r"^FROM ", dockerfile, re.M)) >= 2, "the Dockerfile is multi-stage")
user = re.findall(r"^USER (\S+)", dockerfile, re.M)
check(user and not user[-1].startswith(("root", "0")), "the image runs as a non-root user")
built = set(re.findall(r"-p (\S+)", dockerfile))
bots = {tomllib.loads(p.read_text())["package"]["name"] for p in Path("bots").glob("*/Cargo.toml")}
check(bots | {"yomi"} <= built, f"the image builds every plugin: missing {bots - built}")
check(Path("deploy/ping.sh").is_file(), "the probe script the image installs exists")

# --- The probe against a real server -------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


port = free_port()
probe = ["bash", "deploy/ping.sh", f"127.0.0.1:{port}"]
serve = subprocess.Popen([yomi, "serve", "--tcp", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    deadline = time.time() + 30
    while subprocess.run(probe, capture_output=True).returncode != 0:
        check(time.time() < deadline, "the probe never saw the server answer")
        time.sleep(0.1)
finally:
    serve.terminate()
    serve.wait()
check(subprocess.run(probe, capture_output=True).returncode != 0, "the probe fails with no server")

# The Deployment's own arguments, on free local ports: /healthz for its probes, /metrics where
# the Service's annotations send Prometheus.
local = {str(n): str(free_port()) for n in port_numbers.values()}
local_args = [re.sub(r"^0\.0\.0\.0:(\d+)$", lambda m: f"127.0.0.1:{local[m.group(1)]}", a) for a in args]
# The Secret's files, written here with made-up tokens.
secrets = work / "secrets"
for flag, path in token_files.items():
    local_file = secrets / Path(path).name
    local_file.parent.mkdir(parents=True, exist_ok=True)
    local_file.write_text(f"check-deploy-{flag}\n")
    local_args[local_args.index(path)] = str(local_file)
deployed = subprocess.Popen([yomi, *local_args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tcp_request(port, line):
    with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:
        s.sendall(line.encode() + b"\n")
        return json.loads(s.makefile().readline())


def http_get(port, path):
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
        return response.status, response.read().decode()


try:
    deadline = time.time() + 30
    while True:
        try:
            status, body = http_get(local[str(http_port or scrape_port)],
                                    "/healthz" if http_port else annotations.get("prometheus.io/path", "/metrics"))
            break
        except OSError:
            check(time.time() < deadline, "the Deployment's arguments never served HTTP")
            time.sleep(0.1)
    if http_port:
        check((status, body) == (200, "ok\n"), "GET /healthz answers 200 ok")
    # One protocol ping, so there is a request to count.
    tcp_port = local[args[args.index("--tcp") + 1].rsplit(":", 1)[1]]
    run(["bash", "deploy/ping.sh", f"127.0.0.1:{tcp_port}"])
    refused = tcp_request(tcp_port, '{"id":1,"op":"catalog"}')
    check(refused.get("error", {}).get("code") == "unauthorized", "a request without the token is refused")
    status, body = http_get(local[str(scrape_port)], annotations.get("prometheus.io/path", "/metrics"))
    check(status == 200 and 'yomi_requests_total{op="ping",code="ok"} 1' in body
          and 'yomi_requests_total{op="catalog",code="unauthorized"} 1' in body,
          "the scrape address serves yomi's metrics")
finally:
    deployed.terminate()
    deployed.wait()

# --- The shard commands, run locally ------------------------------------------------------
FEW = "6"  # games per pairing here: every seat order of one deal


def few_games(args):
    args = list(args)
    args[args.index("--games-per-pair") + 1] = FEW
    return args


def whole_tournament(args, data):
    """The same tournament in one process: the shard's command without its shard options."""
    args = few_games(args)
    for flag in ("--shard", "--shards"):
        i = args.index(flag)
        del args[i:i + 2]
    args[args.index("--data-dir") + 1] = str(data)
    return json.loads(run([yomi, *args]))


def same_standings(merged, whole, what):
    check(merged["games"] == whole["games"] and merged["standings"] == whole["standings"]
          and merged["pairings"] == whole["pairings"], f"{what}: merged standings equal one process's")


k8s = work / "k8s"
for index in range(n):
    args = [a.replace("$(JOB_COMPLETION_INDEX)", str(index)).replace("/data/", f"{k8s}/")
            for a in few_games(shard_args)]
    run([yomi, *args])
merged = json.loads(run([yomi, *[a.replace("/data/", f"{k8s}/") for a in merge_args], "--json"]))
same_standings(merged, whole_tournament(shard_args, k8s / "whole"), "Kubernetes Indexed Job")

sbatch = Path("deploy/slurm/tournament.sbatch").read_text()
last = int(re.search(r"^#SBATCH --array=0-(\d+)", sbatch, re.M).group(1))
slurm = {"YOMI_CUP_DIR": str(work / "slurm"), "GAMES_PER_PAIR": FEW, "SHARDS": str(last + 1),
         "SLURM_ARRAY_TASK_COUNT": str(last + 1)}
for task in range(last + 1):
    run(["bash", "deploy/slurm/tournament.sbatch"], env={**slurm, "SLURM_ARRAY_TASK_ID": str(task)})
merged = json.loads(run(["bash", "deploy/slurm/merge.sbatch"], env=slurm))
whole = json.loads(run(["bash", "deploy/slurm/tournament.sbatch"],
                       env={**slurm, "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1",
                            "YOMI_CUP_DIR": str(work / "slurm-whole")}))
same_standings(merged, whole, "Slurm job array")
print(f"check-deploy: {checks} checks passed")
PY
