"""Cloud and container tools: kubectl, helm, terraform, aws, docker networks and shells, TLS."""

from __future__ import annotations

import re

from termwise.agent.rules import fuzzy
from termwise.agent.rules.engine import Case, rule

_KUBE_TYPES = (
    "pods deployments services nodes namespaces configmaps secrets ingresses jobs cronjobs "
    "statefulsets daemonsets replicasets persistentvolumes persistentvolumeclaims events "
    "serviceaccounts roles rolebindings clusterroles clusterrolebindings endpoints "
    "horizontalpodautoscalers storageclasses networkpolicies pod deployment service node "
    "namespace configmap secret ingress job cronjob statefulset daemonset replicaset pv pvc "
    "po deploy svc no ns cm ing sts ds rs ep hpa sa"
).split()


@rule("kubectl_resource_type", "The nearest Kubernetes resource type.", priority=6)
def kube_type(c: Case) -> list[str]:
    m = c.search(r'the server doesn\'t have a resource type "([^"]+)"')
    if not m or not c.is_app("kubectl", "oc"):
        return []
    return [
        c.replace_arg(m.group(1), t) for t in fuzzy.closest(m.group(1), _KUBE_TYPES, n=2, limit=3)
    ]


@rule("kubectl_not_found", "Nothing by that name here: look in every namespace.", priority=9)
def kube_not_found(c: Case) -> list[str]:
    m = c.search(r'Error from server \(NotFound\): ([\w.]+?)(?:\.[\w.]+)? "([^"]+)" not found')
    if not m or not c.is_app("kubectl", "oc"):
        return []
    return [f"kubectl get {m.group(1)} -A | grep {m.group(2)}"]


@rule("kubectl_pick_container", "The pod runs several containers: name one.", priority=6)
def kubectl_container(c: Case) -> list[str]:
    m = c.search(r"a container name must be specified for pod \S+, choose one of: \[([^\]]+)\]")
    if not c.is_app("kubectl") or not m:
        return []
    names = m.group(1).split()
    sub = c.args[0] if c.args else ""
    if sub == "exec" and " -- " in c.script:  # the container goes before the command
        head, tail = c.script.split(" -- ", 1)
        return [f"{head} -c {n} -- {tail}" for n in names[:3]]
    return [f"{c.script} -c {n}" for n in names[:3]]


@rule("helm_name_in_use", "The release exists: upgrade it instead.", priority=6)
def helm_in_use(c: Case) -> list[str]:
    if not c.is_app("helm") or "cannot re-use a name that is still in use" not in c.output:
        return []
    return [re.sub(r"\binstall\b", "upgrade --install", c.script, count=1)]


@rule(
    "terraform_state_lock",
    "A stale state lock blocks terraform: release it (if nothing else runs).",
    6,
)
def tf_lock(c: Case) -> list[str]:
    if not c.is_app("terraform") or "Error acquiring the state lock" not in c.output:
        return []
    m = c.search(r"\bID:\s+([\w-]{8,})")
    return [f"terraform force-unlock {m.group(1)}"] if m else []


@rule("aws_expired_credentials", "Your AWS credentials expired: sign in again.", priority=6)
def aws_expired(c: Case) -> list[str]:
    if not c.is_app("aws", "terraform", "cdk", "sam", "eksctl"):
        return []
    if c.has(
        "expiredtoken",
        "the sso session associated with this profile has expired",
        "token has expired",
    ):
        return [c.then("aws sso login", c.script)]
    m = c.search(r"The config profile \(([^)]+)\) could not be found")
    if m:
        return [f"aws configure --profile {m.group(1)}", "aws configure list-profiles"]
    return []


@rule("docker_shell_missing", "The image has no bash: use sh.", priority=5)
def no_bash(c: Case) -> list[str]:
    if not c.is_app("docker", "podman", "kubectl"):
        return []
    if not re.search(
        r'exec: "bash": executable file not found|"bash": executable file not found in \$PATH',
        c.output,
    ):
        return []
    return [re.sub(r"\bbash\b(?=\s*$)", "sh", c.script, count=1)]


@rule("docker_network_missing", "The network does not exist: create it.", priority=7)
def network(c: Case) -> list[str]:
    m = c.search(r"network ([\w.-]+) not found")
    if not m or not c.is_app("docker"):
        return []
    return [c.then(f"docker network create {m.group(1)}", c.script)]


@rule("docker_no_such_container", "No container by that name: list them all.", priority=9)
def no_container(c: Case) -> list[str]:
    if not c.is_app("docker") or not c.search(r"No such container: \S+"):
        return []
    return ["docker ps -a"]


@rule("ssh_too_many_auth", "SSH tried too many keys: offer only the one you name.", priority=6)
def too_many_auth(c: Case) -> list[str]:
    if "Too many authentication failures" not in c.output or not c.is_app("ssh", "scp", "sftp"):
        return []
    return [re.sub(r"\b(ssh|scp|sftp)\b", r"\1 -o IdentitiesOnly=yes", c.script, count=1)]


_INSECURE = "Turns off certificate checks: anyone on the network path could tamper with the data."


@rule(
    "tls_certificate",
    "The certificate is not trusted: fix the CA store (or skip checks, insecurely).",
    9,
)
def tls(c: Case) -> list[tuple[str, ...]]:
    if c.is_app("curl") and c.search(r"curl: \(60\) SSL certificate problem"):
        return [
            (
                c.replace_word("curl", "curl -k"),
                "Skip certificate checks (insecure: only for hosts you trust).",
                _INSECURE,
            )
        ]
    if c.is_app("wget") and "cannot verify" in c.output and "certificate" in c.output:
        return [
            (
                c.script + " --no-check-certificate",
                "Skip certificate checks (insecure: only for hosts you trust).",
                _INSECURE,
            )
        ]
    if c.is_app("pip", "pip3") and "CERTIFICATE_VERIFY_FAILED" in c.output:
        return [
            (
                c.script + " --trusted-host pypi.org --trusted-host files.pythonhosted.org",
                "Trust PyPI's hosts despite the proxy's certificate.",
            )
        ]
    if c.is_app("npm") and c.has("self signed certificate", "unable_to_get_issuer_cert_locally"):
        return [("npm config set strict-ssl false", "Stop npm checking certificates.", _INSECURE)]
    return []
