"""tools/pod_runner's pure parts (the realray tier runs the rest): the image -> Ray venv choice, the kubelet's
``$(VAR)`` expansion and env sources (a missing Secret or key in the kubelet's words), the cluster DNS records and
answers, the binds of a container's mounts."""

from __future__ import annotations

import base64
import socket
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))  # test infrastructure, not the package

from pod_runner.dns import Records, answer, build_records
from pod_runner.images import ImageError, ray_version, venv_for
from pod_runner.kube import Kube
from pod_runner.process import bind_commands
from pod_runner.spec import Env, expand, field_ref, resource_ref


@pytest.mark.parametrize(
    ("image", "version"),
    [
        ("rayproject/ray:2.52.0", "2.52.0"),
        ("rayproject/ray:2.53.0-py311", "2.53.0"),
        ("docker.io/rayproject/ray:2.53.0-py311-cpu", "2.53.0"),
        ("rayproject/ray-ml:2.9.3-gpu", "2.9.3"),
        ("rayproject/ray:2.53.0-py311-cu121", "2.53.0"),
        ("rayproject/ray:latest", None),
        ("nginx:1.27", None),
        ("rayproject/ray:2.53.0-custom", None),
    ],
)
def test_the_image_tag_names_the_ray_release(image: str, version: str | None) -> None:
    assert ray_version(image) == version


def test_an_image_without_a_venv_says_so(tmp_path: Path) -> None:
    (tmp_path / "ray-2.53.0" / "bin").mkdir(parents=True)
    (tmp_path / "ray-2.53.0" / "bin" / "ray").write_text("")
    assert venv_for("rayproject/ray:2.53.0-cpu", tmp_path) == tmp_path / "ray-2.53.0"
    with pytest.raises(ImageError, match=r"no venv with ray 2\.52\.0"):
        venv_for("rayproject/ray:2.52.0", tmp_path)
    with pytest.raises(ImageError, match="not a Ray image with a release tag"):
        venv_for("nginx:1.27", tmp_path)


def test_a_venv_under_tmp_is_bound_into_the_containers_own_tmp(tmp_path: Path) -> None:
    # every container mounts its own /tmp over the host's: a venv there (HOME or the cache under /tmp) would be
    # hidden ("ray: command not found"), so it is bound, read-only, to the same path inside the container's /tmp
    own_tmp = tmp_path / "containers" / "ray-head" / "tmp"
    venv = Path("/tmp/home/.cache/pulumi-kuberay/realray/ray-2.53.0")
    inside = f"{own_tmp}/home/.cache/pulumi-kuberay/realray/ray-2.53.0"
    assert bind_commands([], own_tmp, [venv]) == [
        f"mkdir -p {inside}", f"mount --bind {venv} {inside}", f"mount -o remount,bind,ro {inside}",
    ]
    # a venv elsewhere is seen through the host's filesystem as it is: nothing to bind
    assert bind_commands([], own_tmp, [Path("/root/.cache/pulumi-kuberay/realray/ray-2.53.0")]) == []
    # a volume mounted under /tmp lands in the container's own /tmp; one whose target the host lacks is skipped
    volume = tmp_path / "volumes" / "apps"
    assert bind_commands([(volume, "/tmp/apps", False), (volume, "/no/such/dir", False)], own_tmp, []) == [
        f"mkdir -p {own_tmp}/apps", f"mount --bind {volume} {own_tmp}/apps",
    ]


def test_expand_is_the_kubelets() -> None:
    env = {"A": "1", "POD": "p"}
    assert expand("$(A)-$(POD)-$(NOPE)-$$(A)", env) == "1-p-$(NOPE)-$(A)"


POD: dict[str, Any] = {
    "metadata": {"name": "p", "namespace": "ns", "uid": "u", "labels": {"ray.io/group": "small"}},
    "spec": {"nodeName": "ray-node-0"},
    "status": {"podIP": "198.18.20.10"},
}


def test_field_and_resource_refs() -> None:
    assert field_ref(POD, "status.podIP") == "198.18.20.10"
    assert field_ref(POD, "metadata.labels['ray.io/group']") == "small"
    assert field_ref(POD, "metadata.annotations['x']") == ""
    container = {"resources": {"limits": {"cpu": "1500m", "memory": "2Gi"}}}
    assert resource_ref(container, {"resource": "limits.cpu"}, {}) == "2"  # rounded up, as the kubelet does
    assert resource_ref(container, {"resource": "limits.memory", "divisor": "1Mi"}, {}) == "2048"
    assert resource_ref(container, {"resource": "requests.memory"}, {}) == str(2 * 2**30)  # requests default to limits
    with pytest.raises(ValueError, match="not supported"):
        field_ref(POD, "status.nominatedNodeName")


class _Objects(Kube):
    """The API as far as env resolution reads it: GET of Secrets and ConfigMaps (None: 404)."""

    def __init__(self, objects: dict[str, Any]) -> None:
        super().__init__("https://127.0.0.1:1", "", "", "")
        self.objects = objects

    def get_or_none(self, path: str) -> Any:
        return self.objects.get(path)


def _secret_ref(name: str, key: str, optional: bool = False) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": name, "key": key}
    if optional:
        ref["optional"] = True
    return {"name": "V", "valueFrom": {"secretKeyRef": ref}}


def _config_error(env: Env, container: dict[str, Any]) -> str:
    """The message pod-runner puts in the container's ``CreateContainerConfigError`` (its env does not resolve)."""
    try:
        env.resolve(container, {})
    except ValueError as err:
        return str(err)
    raise AssertionError(f"{container} resolved")


def test_a_missing_secret_or_key_is_the_kubelets_create_container_config_error() -> None:
    token = base64.b64encode(b"not-a-secret").decode()
    kube = _Objects({
        "/api/v1/namespaces/ns/secrets/creds": {"data": {"token": token}},
        "/api/v1/namespaces/ns/configmaps/conf": {"data": {"mode": "fast"}},
    })
    env = Env(kube, POD, {})
    assert env.resolve({"env": [_secret_ref("creds", "token")]}, {})["V"] == "not-a-secret"
    assert "V" not in env.resolve({"env": [_secret_ref("nosuch", "token", optional=True)]}, {})
    assert "V" not in env.resolve({"env": [_secret_ref("creds", "nokey", optional=True)]}, {})
    # the messages of the kubelet's makeEnvironmentVariables (the NotFound of its Secret / ConfigMap manager)
    assert _config_error(env, {"env": [_secret_ref("nosuch", "token")]}) == 'secret "nosuch" not found'
    assert _config_error(env, {"env": [_secret_ref("creds", "nokey")]}) == "couldn't find key nokey in Secret ns/creds"
    assert _config_error(env, {"envFrom": [{"secretRef": {"name": "gone"}}]}) == 'secret "gone" not found'
    config_key = {"name": "M", "valueFrom": {"configMapKeyRef": {"name": "conf", "key": "nokey"}}}
    assert _config_error(env, {"env": [config_key]}) == "couldn't find key nokey in ConfigMap ns/conf"
    no_map = {"name": "M", "valueFrom": {"configMapKeyRef": {"name": "none", "key": "k"}}}
    assert _config_error(env, {"env": [no_map]}) == 'configmap "none" not found'


def _pod(name: str, ip: str, ready: bool, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ns", "labels": labels},
        "status": {"podIP": ip, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def test_records_follow_the_selector_and_readiness() -> None:
    pods = [_pod("head", "198.18.20.10", False, {"app": "a"}), _pod("w", "198.18.20.11", True, {"app": "a"})]
    services = [
        {"metadata": {"name": "ready-only", "namespace": "ns"}, "spec": {"selector": {"app": "a"}}},
        {"metadata": {"name": "all", "namespace": "ns"}, "spec": {"selector": {"app": "a"}, "publishNotReadyAddresses": True}},
        {"metadata": {"name": "none", "namespace": "ns"}, "spec": {"selector": {"app": "b"}}},
    ]
    records = build_records(services, pods)
    assert records["ready-only.ns.svc.cluster.local"] == ["198.18.20.11"]
    assert records["all.ns.svc.cluster.local"] == ["198.18.20.10", "198.18.20.11"]
    assert records["none.ns.svc.cluster.local"] == []
    assert records["head.ns.svc.cluster.local"] == ["198.18.20.10"]


def _query(name: str) -> bytes:
    q = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00"
    return struct.pack("!HHHHHH", 7, 0x0100, 1, 0, 0, 0) + q + struct.pack("!HH", 1, 1)


def test_answers() -> None:
    records = Records({"s.ns.svc.cluster.local": ["198.18.20.11"], "empty.ns.svc.cluster.local": []})
    reply = answer(_query("S.ns.svc.cluster.local"), records)
    assert reply is not None
    qid, flags, _, ancount = struct.unpack("!HHHH", reply[:8])
    assert (qid, flags & 0xF, ancount) == (7, 0, 1)
    assert socket.inet_ntoa(reply[-4:]) == "198.18.20.11"
    empty = answer(_query("empty.ns.svc.cluster.local"), records)
    assert empty is not None and struct.unpack("!HHHH", empty[:8])[1] & 0xF == 0  # NOERROR, no address yet
    missing = answer(_query("github.com"), records)
    assert missing is not None and struct.unpack("!HHHH", missing[:8])[1] & 0xF == 3  # NXDOMAIN
