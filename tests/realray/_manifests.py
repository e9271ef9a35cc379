"""The Ray objects of the realray tier, small enough for 2 cores: a head with 1 CPU for Ray, workers of 1 CPU."""

from __future__ import annotations

from typing import Any

from realray.conftest import APPS_CONFIGMAP, APPS_MOUNT, RAY_MAIN


def container(name: str, version: str, cpu: str = "1", memory: str = "2Gi") -> dict[str, Any]:
    return {
        "name": name,
        "image": f"rayproject/ray:{version}",
        "resources": {"limits": {"cpu": cpu, "memory": memory}, "requests": {"cpu": cpu, "memory": memory}},
        # the Serve apps of the test tree, from the namespace's ConfigMap (there is no image to bake them into;
        # a path of the checkout would not do: it may be under /tmp, which each container has of its own)
        "volumeMounts": [{"name": APPS_CONFIGMAP, "mountPath": APPS_MOUNT, "readOnly": True}],
        "env": [
            {"name": "PYTHONPATH", "value": APPS_MOUNT},
            {"name": "RAY_USAGE_STATS_ENABLED", "value": "0"},
            # Ray's time-outs are for a machine with CPU to spare; CI runs this tier on 2 cores beside the other
            # live tiers (load 20 and more), where a slow start is not a dead one. The dashboard's modules get 30 s
            # to start: past that the head has no dashboard ("Module MetricsHead failed to start"), so KubeRay
            # can neither submit a job in HTTPMode nor deploy a Serve config, and nothing ever serves. Serve's
            # proxy ready/health checks: 5 s / 10 s.
            {"name": "RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT", "value": "300"},
            {"name": "RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S", "value": "60"},
            {"name": "RAY_SERVE_PROXY_HEALTH_CHECK_TIMEOUT_S", "value": "60"},
        ],
    }


def _pod(container_spec: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"containers": [container_spec],
                     "volumes": [{"name": APPS_CONFIGMAP, "configMap": {"name": APPS_CONFIGMAP}}]}}


def cluster_spec(
    version: str = RAY_MAIN, *, workers: int = 1, ray_version: str | None = None, head_cpus: str = "1",
    group: str = "small",
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "rayVersion": ray_version or version,
        "headGroupSpec": {
            "rayStartParams": {"num-cpus": head_cpus},
            "template": _pod(container("ray-head", version, memory="2Gi")),
        },
        "workerGroupSpecs": [],
    }
    if workers:
        spec["workerGroupSpecs"].append({
            "groupName": group,
            "replicas": workers,
            "minReplicas": 0,
            "maxReplicas": max(workers, 2),
            "rayStartParams": {"num-cpus": "1"},
            "template": _pod(container("ray-worker", version, memory="1Gi")),
        })
    return spec


def raycluster(name: str, **kw: Any) -> dict[str, Any]:
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": name}, "spec": cluster_spec(**kw)}


def rayjob(name: str, entrypoint: str, *, mode: str = "HTTPMode", shutdown: bool = True,
           selector: str | None = None, **kw: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"entrypoint": entrypoint, "submissionMode": mode}
    if selector is None:
        spec["rayClusterSpec"] = cluster_spec(**kw)
        spec["shutdownAfterJobFinishes"] = shutdown
        if shutdown:
            spec["ttlSecondsAfterFinished"] = 0
    else:
        spec["clusterSelector"] = {"ray.io/cluster": selector}
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": name}, "spec": spec}


def serve_config(greeting: str = "hello") -> str:
    """Two applications of apps/rr_serve_app.py on their own route prefixes (small CPU shares: 2 cores)."""
    return f"""applications:
- name: greet
  route_prefix: /greet
  import_path: rr_serve_app:greeter
  args: {{greeting: {greeting}}}
  deployments: [{{name: Greeter, num_replicas: 1, ray_actor_options: {{num_cpus: 0.1}}}}]
- name: echo
  route_prefix: /echo
  import_path: rr_serve_app:echo
  deployments: [{{name: Echo, num_replicas: 1, ray_actor_options: {{num_cpus: 0.1}}}}]
"""  # text-block


def rayservice(name: str, *, greeting: str = "hello", marker: str = "v1", **kw: Any) -> dict[str, Any]:
    """``marker``: an env var of the head whose change makes KubeRay upgrade to a new cluster (NewCluster)."""
    spec = cluster_spec(**kw)
    spec["headGroupSpec"]["template"]["spec"]["containers"][0]["env"].append({"name": "RR_MARKER", "value": marker})
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": name},
        "spec": {
            "serveConfigV2": serve_config(greeting),
            "upgradeStrategy": {"type": "NewCluster"},
            "rayClusterDeletionDelaySeconds": 10,
            "rayClusterConfig": spec,
        },
    }
