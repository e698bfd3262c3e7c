#!/usr/bin/env bash
# yomi ships as one release: the crates, the Python and the JS client, the image the deployment
# files name, the changelog and the binary all say the same version, and every published crate
# and package names the same repository. Prints each and fails on the first that differs.
#   scripts/check-versions.sh        (with the release binary built, also checks `yomi --version`)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import json, re, subprocess, sys, tomllib
from pathlib import Path

IMAGE = "ghcr.io/yomi-ai/yomi"
failed = []


def same(what, found, expected):
    print(f"  {what}: {found}")
    if found != expected:
        failed.append(f"{what} is {found!r}, expected {expected!r}")


metadata = json.loads(subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
                                     capture_output=True, text=True, check=True).stdout)
workspace = tomllib.loads(Path("Cargo.toml").read_text())["workspace"]["package"]
version, repository = workspace["version"], workspace["repository"]
print(f"version {version}, repository {repository}")
for package in metadata["packages"]:
    same(f"crate {package['name']}", package["version"], version)
    # The crates a user builds or links: the host, the protocol, the plugin interface and the bots.
    if not package["name"].startswith(("fixture-", "yomi-e2e", "yomi-fuzz")):
        same(f"crate {package['name']} repository", package["repository"], repository)

pyproject = tomllib.loads(Path("clients/python/pyproject.toml").read_text())["project"]
same("clients/python/pyproject.toml", pyproject["version"], version)
same("clients/python/pyproject.toml repository", pyproject["urls"]["Repository"], repository)
package = json.loads(Path("clients/js/package.json").read_text())
same("clients/js/package.json", package["version"], version)
same("clients/js/package.json repository", package["repository"]["url"], f"git+{repository}.git")
lock = json.loads(Path("clients/js/package-lock.json").read_text())
same("clients/js/package-lock.json", lock["version"], version)
same("clients/js/package-lock.json (root package)", lock["packages"][""]["version"], version)

for path in ["deploy/compose.yaml", *sorted(map(str, Path("deploy/k8s").glob("*.yaml")))]:
    for image in re.findall(r"^\s*image:\s*(\S+)", Path(path).read_text(), re.M):
        same(f"{path} image", image, f"{IMAGE}:{version}")

releases = re.findall(r"^## \[?(\d+\.\d+\.\d+[^\] ]*)", Path("CHANGELOG.md").read_text(), re.M)
same("CHANGELOG.md latest release", releases[0] if releases else None, version)

binary = Path("target/release/yomi")
if binary.exists():
    said = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    same("yomi --version", said.split()[1], version)

if failed:
    sys.exit("check-versions: FAILED:\n  " + "\n  ".join(failed))
print("check-versions: one version everywhere")
PY
