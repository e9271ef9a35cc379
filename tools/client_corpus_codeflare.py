"""The codeflare-sdk half of tools/gen_client_corpus.py: runs INSIDE codeflare-sdk's own venv (never the project's).

Drives codeflare-sdk's public API as a user would: ``Cluster(ClusterConfiguration(..., write_to_file=True))`` for
RayClusters (the SDK writes the YAML it would apply under ``$HOME/.codeflare/resources/``; HOME is a temporary
folder here) and ``RayJob(...).submit()`` for RayJobs. Both are given an explicit ``api_client`` bound to a fake
Kubernetes API on loopback, started here: it answers the Kueue look-ups the SDK makes (LocalQueues, the default
queue, WorkloadPriorityClasses) from the fixed table ``_LOCAL_QUEUES`` and records every object the SDK creates;
nothing else is reachable. Prints one JSON object on stdout: ``{document name: manifest}``.

Usage (by gen_client_corpus.py): ``<codeflare venv>/bin/python tools/client_corpus_codeflare.py``
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml
from codeflare_sdk import Cluster, ClusterConfiguration, RayJob
from codeflare_sdk.common.utils.utils import get_ray_image_for_python_version
from codeflare_sdk.ray.cluster.config import WorkerGroup
from codeflare_sdk.vendored.python_client.utils.kuberay_cluster_builder import ClusterBuilder, Director
from codeflare_sdk.vendored.python_client.utils.kuberay_cluster_utils import ClusterUtils
from kubernetes import client
from kubernetes.client import (
    V1ConfigMapVolumeSource,
    V1EmptyDirVolumeSource,
    V1PersistentVolumeClaimVolumeSource,
    V1SecretVolumeSource,
    V1Toleration,
    V1Volume,
    V1VolumeMount,
)

#: namespace -> the LocalQueues the fake API lists there (name, is the namespace's default queue)
_LOCAL_QUEUES: dict[str, list[tuple[str, bool]]] = {
    "team-a": [("team-a-queue", False)],
    "team-b": [("team-b-default", True)],
}
_PRIORITY_CLASSES = {"high-priority"}

RECORDED: list[dict[str, Any]] = []


class _FakeApi(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        m = re.fullmatch(r"/apis/kueue\.x-k8s\.io/v1beta\d/namespaces/([^/]+)/localqueues", path)
        if m:
            items = [
                {"metadata": {"name": name, "namespace": m.group(1),
                              "annotations": {"kueue.x-k8s.io/default-queue": "true"} if default else {}}}
                for name, default in _LOCAL_QUEUES.get(m.group(1), [])
            ]  # fmt: skip
            self._send(200, {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueueList", "items": items})
            return
        m = re.fullmatch(r"/apis/kueue\.x-k8s\.io/v1beta\d/workloadpriorityclasses/([^/]+)", path)
        if m and m.group(1) in _PRIORITY_CLASSES:
            self._send(200, {"metadata": {"name": m.group(1)}, "value": 1000})
            return
        self._send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        RECORDED.append(body)
        created = {**body, "metadata": {**body.get("metadata", {}), "uid": "00000000-0000-0000-0000-000000000001"}}
        self._send(201, created)


@contextlib.contextmanager
def _fake_api() -> Iterator[client.ApiClient]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    conf = client.Configuration(host=f"http://127.0.0.1:{server.server_address[1]}")
    try:
        yield client.ApiClient(conf)
    finally:
        server.shutdown()


PY312_IMAGE = get_ray_image_for_python_version("3.12")
PY311_IMAGE = get_ray_image_for_python_version("3.11")


def _clusters() -> dict[str, dict[str, Any]]:
    """name -> ClusterConfiguration keywords (name and namespace added), one per option the SDK offers."""
    pvc = V1Volume(name="data", persistent_volume_claim=V1PersistentVolumeClaimVolumeSource(claim_name="datasets"))
    cm = V1Volume(name="conf", config_map=V1ConfigMapVolumeSource(name="train-config"))
    secret = V1Volume(name="creds", secret=V1SecretVolumeSource(secret_name="s3-creds"))
    scratch = V1Volume(name="scratch", empty_dir=V1EmptyDirVolumeSource(size_limit="10Gi"))
    mounts = [V1VolumeMount(name="data", mount_path="/mnt/data"), V1VolumeMount(name="conf", mount_path="/etc/train"),
              V1VolumeMount(name="creds", mount_path="/etc/creds", read_only=True),
              V1VolumeMount(name="scratch", mount_path="/scratch")]  # fmt: skip
    gpu_taint = [V1Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")]
    return {
        "default": {},
        "name-with-dots": {"name": "cf.team-a.v2", "image": PY312_IMAGE},
        "name-54-chars": {"name": "llama-3-70b-finetune-research-experiment-2026-12-05-ab", "image": PY312_IMAGE},
        "worker-memory-request-above-limit": {"image": PY312_IMAGE, "worker_memory_requests": 16,
                                              "worker_memory_limits": 8},
        "default-image-py312": {"image": PY312_IMAGE},
        "image-tag-ray-2-58-0": {"image": "quay.io/modh/ray:2.58.0-py312-cu128"},
        "image-tag-ray-2-52-1": {"image": "quay.io/modh/ray:2.52.1-py311-cu121"},
        "image-tag-ray-2-47-1": {"image": "quay.io/modh/ray:2.47.1-py311-cu121"},
        "image-rayproject-2-58-0": {"image": "rayproject/ray:2.58.0-py312"},
        "workers-0": {"num_workers": 0, "image": PY312_IMAGE},
        "workers-4": {"num_workers": 4, "image": PY312_IMAGE},
        "worker-gpu-nvidia": {"image": PY312_IMAGE, "num_workers": 2,
                              "worker_extended_resource_requests": {"nvidia.com/gpu": 1}},
        "head-and-worker-gpu": {"image": PY312_IMAGE, "head_extended_resource_requests": {"nvidia.com/gpu": 1},
                                "worker_extended_resource_requests": {"nvidia.com/gpu": 2}},
        "worker-gpu-amd": {"image": PY312_IMAGE, "worker_extended_resource_requests": {"amd.com/gpu": 1}},
        "worker-tpu": {"image": PY312_IMAGE, "worker_extended_resource_requests": {"google.com/tpu": 4}},
        "worker-neuroncore": {"image": PY312_IMAGE, "worker_extended_resource_requests": {"aws.amazon.com/neuroncore": 2}},
        "worker-gaudi": {"image": PY312_IMAGE, "worker_extended_resource_requests": {"habana.ai/gaudi": 8}},
        "custom-resource-mapping": {"image": PY312_IMAGE, "worker_extended_resource_requests": {"example.com/fpga": 1},
                                    "extended_resource_mapping": {"example.com/fpga": "FPGA"}},
        "gpu-mapping-overwritten": {"image": PY312_IMAGE, "worker_extended_resource_requests": {"nvidia.com/gpu": 1},
                                    "extended_resource_mapping": {"nvidia.com/gpu": "A100"},
                                    "overwrite_default_resource_mapping": True},
        "head-worker-resources": {"image": PY312_IMAGE, "head_cpu_requests": "500m", "head_cpu_limits": 4,
                                  "head_memory_requests": 16, "head_memory_limits": "32Gi",
                                  "worker_cpu_requests": 4, "worker_cpu_limits": 8,
                                  "worker_memory_requests": "16Gi", "worker_memory_limits": 32},
        "fractional-cpu": {"image": PY312_IMAGE, "worker_cpu_requests": "250m", "worker_cpu_limits": "0.5",
                           "head_cpu_requests": "500m", "head_cpu_limits": "1500m"},
        "labels-annotations": {"image": PY312_IMAGE, "labels": {"team": "ml", "cost-center": "42"},
                               "annotations": {"example.com/owner": "alice", "sidecar.istio.io/inject": "false"}},
        "envs-usage-stats": {"image": PY312_IMAGE, "envs": {"HF_HOME": "/scratch/hf", "NCCL_DEBUG": "INFO"},
                             "enable_usage_stats": True},
        "image-pull-secrets": {"image": PY312_IMAGE, "image_pull_secrets": ["quay-pull", "registry-creds"]},
        "tolerations": {"image": PY312_IMAGE, "head_tolerations": gpu_taint, "worker_tolerations": gpu_taint,
                        "worker_extended_resource_requests": {"nvidia.com/gpu": 1}},
        "volumes": {"image": PY312_IMAGE, "volumes": [pvc, cm, secret, scratch], "volume_mounts": mounts},
        "autoscaling": {"image": PY312_IMAGE, "enable_autoscaling": True, "min_workers": 1, "max_workers": 5},
        "local-queue-named": {"image": PY312_IMAGE, "namespace": "team-a", "local_queue": "team-a-queue"},
        "local-queue-default": {"image": PY312_IMAGE, "namespace": "team-b"},
        "gcs-ft-redis": {"image": PY312_IMAGE, "enable_gcs_ft": True, "redis_address": "redis.ml.svc:6379",
                         "redis_password_secret": {"name": "redis-auth", "key": "password"},
                         "external_storage_namespace": "ml-cluster-a"},
        "additional-worker-groups": {
            "image": PY312_IMAGE,
            "additional_worker_groups": [
                WorkerGroup(group_name="gpu-a100", replicas=2, min_replicas=1, max_replicas=4, cpu_requests=8,
                            cpu_limits=8, memory_requests=64, memory_limits=64, gpu_type="nvidia.com/gpu",
                            gpu_count=4, labels={"accelerator": "a100"}, tolerations=gpu_taint),
                WorkerGroup(group_name="cpu-big", replicas=1, cpu_requests="16", cpu_limits="16",
                            memory_requests="64Gi", memory_limits="64Gi", envs={"OMP_NUM_THREADS": "16"}),
            ],
        },
        "additional-worker-group-own-image": {
            "image": PY312_IMAGE,
            "additional_worker_groups": [WorkerGroup(group_name="legacy", image="quay.io/modh/ray:2.52.1-py311-cu121")],
        },
    }  # fmt: skip


def _jobs(entry_dir: Path) -> dict[str, dict[str, Any]]:
    """name -> RayJob keywords (job_name, namespace added); cluster_config is a dict of ClusterConfiguration keywords."""
    os.chdir(entry_dir)  # the entrypoint and working_dir paths are relative: the documents do not name the folder
    script = Path("train.py")
    script.write_text("import ray\nray.init()\nprint(ray.cluster_resources())\n")
    workdir = Path("project")
    workdir.mkdir(exist_ok=True)
    (workdir / "main.py").write_text("print('hello')\n")
    return {
        "name-48-chars": {"job_name": "nightly-eval-llama-3-70b-research-2026-12-05-run", "entrypoint": "python -c 'print(1)'",
                          "cluster_config": {"image": PY312_IMAGE}},
        "name-with-dots": {"job_name": "cfj.nightly.v2", "entrypoint": "python -c 'print(1)'",
                           "cluster_config": {"image": PY312_IMAGE}},
        "default-cluster": {"entrypoint": "python -c 'import ray; ray.init()'", "cluster_config": {}},
        "py312-cluster": {"entrypoint": "python -c 'import ray; ray.init()'",
                          "cluster_config": {"image": PY312_IMAGE}},
        "tag-2-58-0-cluster": {"entrypoint": "python -c 'import ray; ray.init()'",
                               "cluster_config": {"image": "quay.io/modh/ray:2.58.0-py312-cu128"}},
        "gpu-workers": {"entrypoint": "python train.py", "cluster_config": {
            "image": PY312_IMAGE, "num_workers": 2, "worker_extended_resource_requests": {"nvidia.com/gpu": 1}}},
        "local-queue-priority": {"entrypoint": "python -c 'print(1)'", "namespace": "team-a",
                                 "local_queue": "team-a-queue", "priority_class": "high-priority",
                                 "cluster_config": {"image": PY312_IMAGE}},
        "default-queue": {"entrypoint": "python -c 'print(1)'", "namespace": "team-b",
                          "cluster_config": {"image": PY312_IMAGE}},
        "runtime-env-pip-env": {"entrypoint": "python -c 'import requests'",
                                "runtime_env": {"pip": ["requests==2.32.3"], "env_vars": {"LOG_LEVEL": "debug"}},
                                "cluster_config": {"image": PY312_IMAGE}},
        "remote-working-dir": {"entrypoint": "python main.py",
                               "runtime_env": {"working_dir": "https://example.com/archive/project.zip"},
                               "cluster_config": {"image": PY312_IMAGE}},
        "local-entrypoint-file": {"entrypoint": f"python {script}", "cluster_config": {"image": PY312_IMAGE}},
        "local-working-dir": {"entrypoint": "python main.py", "runtime_env": {"working_dir": str(workdir)},
                              "cluster_config": {"image": PY312_IMAGE}},
        "deadline-ttl": {"entrypoint": "python -c 'print(1)'", "active_deadline_seconds": 3600,
                         "ttl_seconds_after_finished": 300, "cluster_config": {"image": PY312_IMAGE}},
        "existing-cluster": {"entrypoint": "python -c 'print(1)'", "cluster_name": "shared-cluster"},
        "autoscaling-cluster": {"entrypoint": "python -c 'print(1)'", "cluster_config": {
            "image": PY312_IMAGE, "enable_autoscaling": True, "min_workers": 0, "max_workers": 3}},
        "volumes-labels-cluster": {"entrypoint": "python -c 'print(1)'", "cluster_config": {
            "image": PY312_IMAGE, "labels": {"team": "ml"}, "annotations": {"example.com/owner": "alice"},
            "volumes": [V1Volume(name="data", persistent_volume_claim=V1PersistentVolumeClaimVolumeSource(
                claim_name="datasets"))],
            "volume_mounts": [V1VolumeMount(name="data", mount_path="/mnt/data")]}},
        "additional-worker-group": {"entrypoint": "python -c 'print(1)'", "cluster_config": {
            "image": PY312_IMAGE, "additional_worker_groups": [
                WorkerGroup(group_name="gpu", replicas=1, gpu_type="nvidia.com/gpu", gpu_count=1)]}},
    }  # fmt: skip


def _python_client() -> dict[str, dict[str, Any]]:
    """KubeRay's python client (clients/python-client), which codeflare-sdk vendors: its Director presets, its
    ClusterBuilder with the options of build_meta / build_head / build_worker, and ClusterUtils' edits."""
    out: dict[str, dict[str, Any]] = {}
    for preset in ("basic", "small", "medium", "large"):
        doc = getattr(Director(), f"build_{preset}_cluster")(name=f"pc-{preset}", k8s_namespace="ml")
        out[f"director-{preset}"] = {"how": f"Director().build_{preset}_cluster(name='pc-{preset}', k8s_namespace='ml')",
                                     "document": doc}
    builds: dict[str, tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]] = {
        "builder-defaults": ({}, {}, [{"group_name": "workers"}]),
        "builder-ray-2-58-0-images": ({"ray_version": "2.58.0"}, {"ray_image": "rayproject/ray:2.58.0"},
                                      [{"group_name": "workers", "ray_image": "rayproject/ray:2.58.0"}]),
        "builder-ray-version-only": ({"ray_version": "2.58.0"}, {}, [{"group_name": "workers"}]),
        "builder-head-num-cpus-0-two-groups": (
            {"labels": {"team": "ml"}},
            {"ray_start_params": {"dashboard-host": "0.0.0.0", "num-cpus": "0"}, "cpu_requests": "1", "cpu_limits": "1"},
            [{"group_name": "cpu", "replicas": 2, "cpu_requests": "4", "cpu_limits": "4", "memory_requests": "8G",
              "memory_limits": "8G"},
             {"group_name": "big", "replicas": 0, "min_replicas": 0, "max_replicas": 4, "cpu_requests": "16",
              "cpu_limits": "16", "memory_requests": "64G", "memory_limits": "64G",
              "ray_start_params": {"num-cpus": "16"}}]),
        "builder-nodeport-custom-images": ({}, {"service_type": "NodePort", "ray_image": "rayproject/ray:2.46.0-py311"},
                                           [{"group_name": "workers", "ray_image": "rayproject/ray:2.46.0-py311",
                                             "init_image": "busybox:1.36"}]),
    }  # fmt: skip
    for name, (meta, head, workers) in builds.items():
        builder = ClusterBuilder().build_meta(name=f"pc-{name}"[:40].rstrip("-"), k8s_namespace="ml", **meta)
        builder = builder.build_head(**head)
        for worker in workers:
            builder = builder.build_worker(**worker)
        calls = [_how("build_meta", meta), _how("build_head", head), *(_how("build_worker", w) for w in workers)]
        out[name] = {"how": "ClusterBuilder()." + ".".join(calls) + ".get_cluster()", "document": builder.get_cluster()}
    utils = ClusterUtils()
    base = Director().build_small_cluster(name="pc-edited", k8s_namespace="ml")
    group = base["spec"]["workerGroupSpecs"][0]["groupName"]
    edits = {
        "utils-update-replicas": ("update_worker_group_replicas", {"max_replicas": 8, "min_replicas": 2, "replicas": 4}),
        "utils-update-resources": ("update_worker_group_resources",
                                   {"cpu_requests": "4", "memory_requests": "8G", "cpu_limits": "4", "memory_limits": "8G",
                                    "container_name": "ray-worker"}),
        "utils-duplicate-group": ("duplicate_worker_group", {"new_group_name": "pc-edited-workers-2"}),
        "utils-delete-group": ("delete_worker_group", {}),
    }  # fmt: skip
    for name, (method, kw) in edits.items():
        doc, ok = getattr(utils, method)(json.loads(json.dumps(base)), group_name=group, **kw)
        assert ok, name
        doc["metadata"]["name"] = f"pc-{name}"
        out[name] = {"how": f"ClusterUtils().{method}(<Director().build_small_cluster(...)>, group_name={group!r}, "
                            + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")",
                     "document": doc}  # fmt: skip
    return out


def _write_kubeconfig(home: Path, server: str) -> None:
    kubeconfig = {
        "apiVersion": "v1", "kind": "Config", "current-context": "fake",
        "clusters": [{"name": "fake", "cluster": {"server": server}}],
        "users": [{"name": "fake", "user": {"token": "fake"}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake", "namespace": "ml"}}],
    }  # fmt: skip
    (home / ".kube").mkdir()
    (home / ".kube" / "config").write_text(yaml.safe_dump(kubeconfig))
    os.environ["KUBECONFIG"] = str(home / ".kube" / "config")


def _how(call: str, kw: dict[str, Any]) -> str:
    """The call that made a document, on one line (the Kubernetes objects as the JSON the SDK sends)."""
    def show(v: Any) -> str:
        if isinstance(v, WorkerGroup):
            fields = {k: x for k, x in vars(v).items() if x not in (None, {}, [])}
            return "WorkerGroup(" + ", ".join(f"{k}={show(x)}" for k, x in fields.items()) + ")"
        if isinstance(v, list):
            return "[" + ", ".join(show(x) for x in v) + "]"
        if isinstance(v, ClusterConfiguration):
            return v.__class__.__name__ + "(...)"
        if hasattr(v, "to_dict"):
            return json.dumps(client.ApiClient().sanitize_for_serialization(v), sort_keys=True)
        return repr(v)

    return f"{call}(" + ", ".join(f"{k}={show(v)}" for k, v in kw.items()) + ")"


def _quiet(fn: Callable[[], Any]) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):
        return fn()


def main() -> int:
    out: dict[str, Any] = {}
    errors: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as home, _fake_api() as api:
        os.environ["HOME"] = home  # write_to_file writes under ~/.codeflare/resources/
        _write_kubeconfig(Path(home), api.configuration.host)  # the SDK's own look-ups without our api_client
        for name, kw in _clusters().items():
            kw = {"namespace": "ml", "name": f"cf-{name}"[:40].rstrip("-"), **kw, "write_to_file": True}
            try:
                cluster = _quiet(lambda kw=kw: Cluster(ClusterConfiguration(**kw), api_client=api))
                doc = yaml.safe_load(Path(cluster.resource_yaml).read_text())
                out[f"raycluster-{name}"] = {"how": _how("ClusterConfiguration", kw), "document": doc}
            except Exception as e:
                errors[f"raycluster-{name}"] = f"{type(e).__name__}: {e}"
        for name, kw in _jobs(Path(home)).items():
            kw = {"namespace": "ml", "job_name": f"cfj-{name}"[:40].rstrip("-"), **kw}
            how = _how("RayJob", {k: v for k, v in kw.items() if k != "cluster_config"})
            if "cluster_config" in kw:
                how += " with cluster_config=" + _how("ClusterConfiguration", kw["cluster_config"])
                kw["cluster_config"] = ClusterConfiguration(**kw["cluster_config"])
            before = len(RECORDED)
            try:
                _quiet(lambda kw=kw: RayJob(api_client=api, **kw).submit())
                jobs = [d for d in RECORDED[before:] if d.get("kind") == "RayJob"]
                out[f"rayjob-{name}"] = {"how": how + ".submit()", "document": jobs[0]}
            except Exception as e:
                errors[f"rayjob-{name}"] = f"{type(e).__name__}: {e}"
    vendored = re.search(r"ray-project/kuberay @ ([0-9a-f]{40})", sys.modules["codeflare_sdk.vendored"].__doc__ or "")
    python_client = {"commit": vendored.group(1) if vendored else "unknown", "documents": _python_client()}
    json.dump({"documents": out, "refused_by_client": errors, "python_client": python_client}, sys.stdout, indent=1,
              sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
