#!/usr/bin/env python3
"""The `podman run` of a deployment file's yomi container, so scripts/test-image.sh runs the
settings the files give operators rather than settings of its own:

    deploy-args.py compose deploy/compose.yaml PORTS VOLUME
    deploy-args.py k8s deploy/k8s/server.yaml PORTS VOLUME SECRETS_DIR

PORTS maps the file's ports to free ones of this machine (`7878=41000,8080=41001`): the test
runs on the host network, where the file's own ports may be taken. VOLUME is the named volume
that takes the data directory's place; SECRETS_DIR holds the files of the Kubernetes Secret.
Prints JSON: `image`, `options` (for podman run), `args` (the container's command), `health`
(Compose: the health check's command) and `probes` (Kubernetes: the httpGet probes' path and
port). Unknown settings of the service make it fail: a setting it cannot honour is not tested.
"""
import json
import re
import sys

import yaml


def ported(args, ports):
    """The arguments with each `HOST:PORT` of a mapped port moved to its free one."""
    return [re.sub(r":(\d+)$", lambda m: ":" + ports.get(m.group(1), m.group(1)), a) for a in args]


def compose(path, ports, volume):
    service = yaml.safe_load(open(path))["services"]["yomi"]
    options = []
    for name, value in service.get("environment", {}).items():
        # `${NAME:?...}` is the operator's environment: pass it through.
        options += ["-e", name] if str(value).startswith("${" + name) else ["-e", f"{name}={value}"]
    for mount in service.get("volumes", []):
        source, target = mount.split(":")[:2]
        options += ["-v", f"{volume}:{target}"]
    if service.get("read_only"):
        options.append("--read-only")
    options += [f"--cap-drop={c}" for c in service.get("cap_drop", [])]
    options += [f"--security-opt={o}" for o in service.get("security_opt", [])]
    for name, limit in service.get("ulimits", {}).items():
        options.append(f"--ulimit={name}={limit['soft']}:{limit['hard']}")
    if service.get("stop_signal"):
        options.append(f"--stop-signal={service['stop_signal']}")
    health = service["healthcheck"]["test"]
    if health[0] != "CMD":
        sys.exit(f"deploy-args: the health check must be a CMD, not {health[0]}")
    known = {"image", "command", "environment", "ports", "volumes", "read_only", "cap_drop",
             "security_opt", "ulimits", "stop_signal", "stop_grace_period", "healthcheck", "restart"}
    if set(service) - known:
        sys.exit(f"deploy-args: settings the test does not run: {sorted(set(service) - known)}")
    return {"image": service["image"], "options": options, "args": ported(service["command"], ports),
            "health": ported(health[1:], ports)}


def kubernetes(path, ports, volume, secrets):
    deployment = next(d for d in yaml.safe_load_all(open(path)) if d and d["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    security = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
    options = [f"--user={security['runAsUser']}:{security['runAsGroup']}"]
    if security.get("readOnlyRootFilesystem"):
        options.append("--read-only")
    if security.get("allowPrivilegeEscalation") is False:
        options.append("--security-opt=no-new-privileges")
    options += [f"--cap-drop={c}" for c in security.get("capabilities", {}).get("drop", [])]
    for env in container.get("env", []):
        options += ["-e", f"{env['name']}={env['value']}"]
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        kind = volumes[mount["name"]]
        if "secret" in kind:
            options += ["-v", f"{secrets}:{mount['mountPath']}:ro"]
        elif "emptyDir" in kind or "persistentVolumeClaim" in kind:
            options += ["-v", f"{volume}:{mount['mountPath']}"]
        else:
            sys.exit(f"deploy-args: volume {mount['name']} is of a kind the test does not run")
    named = {p["name"]: str(p["containerPort"]) for p in container["ports"]}
    probes = [{"probe": probe, "path": container[probe]["httpGet"]["path"],
               "port": ports[named.get(container[probe]["httpGet"]["port"], str(container[probe]["httpGet"]["port"]))]}
              for probe in ("readinessProbe", "livenessProbe")]
    return {"image": container["image"], "options": options, "args": ported(container["args"], ports),
            "probes": probes}


def main(argv):
    kind, path, port_map, volume = argv[:4]
    ports = dict(pair.split("=") for pair in port_map.split(","))
    if kind == "compose":
        out = compose(path, ports, volume)
    elif kind == "k8s":
        out = kubernetes(path, ports, volume, argv[4])
    else:
        sys.exit(__doc__)
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1:])
