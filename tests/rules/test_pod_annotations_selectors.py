"""What ``pod-spec-value-invalid`` gained for the Pod's annotations (tolerations, mirror marker, deletion cost, the
deprecated seccomp and AppArmor annotations and their agreement with the fields: rules/_pod_annotations.py), its
selectors (matchFields, pod affinity selectors and label keys, topology spread keys: rules/_pod_selectors.py) and
its security context (sysctls, shareProcessNamespace, supplementalGroupsPolicy, seLinuxChangePolicy) and DNS
searches: each side of what Kubernetes 1.36's Pod validation refuses, with the path and message."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._examples import example, example_job, worker_of

JsonDict = dict[str, Any]
TEMPLATE = "spec.workerGroupSpecs[0].template"
WORKER = f"{TEMPLATE}.spec"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_WORKER = "container.seccomp.security.alpha.kubernetes.io/ray-worker"
_APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
_TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"


def _findings(doc: JsonDict) -> list[tuple[str, str]]:
    return [(f.path, f.message) for f in rules.check(doc) if f.rule_id == "pod-spec-value-invalid"]


def _paths(doc: JsonDict) -> list[str]:
    return sorted(path for path, _ in _findings(doc))


def _worker(annotations: JsonDict | None = None, container: JsonDict | None = None, **spec: Any) -> JsonDict:
    def edit(doc: JsonDict) -> None:
        template = worker_of(doc)["template"]
        if annotations is not None:
            template["metadata"] = {"annotations": annotations}
        template["spec"].update(spec)
        template["spec"]["containers"][0].update(container or {})

    return example(edit)


def _annotation(key: str) -> str:
    return f'{TEMPLATE}.metadata.annotations["{key}"]'


@pytest.mark.parametrize(
    ("annotations", "found"),
    [
        ({_TOLERATIONS: '[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]'}, False),
        ({_TOLERATIONS: ""}, False),  # empty: not read (ValidatePodSpecificAnnotations)
        ({_TOLERATIONS: "null"}, False),
        ({_TOLERATIONS: '[{"key": "gpu", "operator": "exists"}]'}, True),
        ({_TOLERATIONS: '{"key": "gpu"}'}, True),  # an object, not a list
        ({_TOLERATIONS: "[{key: gpu}]"}, True),  # not JSON
        ({_TOLERATIONS: '[{"key": "gpu", "operator": "Exists", "tolerationSeconds": "30"}]'}, True),  # a string
        (
            {_TOLERATIONS: '[{"Key": "gpu", "Operator": "exists"}]'},
            True,
        ),  # Go's encoding/json matches names of any case
        ({"kubernetes.io/config.mirror": "abc"}, True),  # a mirror Pod without spec.nodeName
        ({"controller.kubernetes.io/pod-deletion-cost": "-100"}, False),
        ({"controller.kubernetes.io/pod-deletion-cost": "0"}, False),
        ({"controller.kubernetes.io/pod-deletion-cost": "+100"}, True),
        ({"controller.kubernetes.io/pod-deletion-cost": "007"}, True),
        ({"controller.kubernetes.io/pod-deletion-cost": "2147483648"}, True),
        ({"controller.kubernetes.io/pod-deletion-cost": "1_000"}, True),
        ({_SECCOMP_POD: "runtime/default", _SECCOMP_WORKER: "docker/default"}, False),
        ({_SECCOMP_POD: "localhost/profiles/ray.json"}, False),
        ({_SECCOMP_POD: "RuntimeDefault"}, True),
        ({_SECCOMP_POD: "localhost//etc/ray.json"}, True),  # absolute
        ({_SECCOMP_WORKER: "localhost/../ray.json"}, True),
        ({_APPARMOR + "ray-worker": "localhost/ray"}, False),
        ({_APPARMOR + "ray-worker": ""}, False),
        ({_APPARMOR + "wait-gcs-ready": "runtime/default"}, False),  # the init container KubeRay adds
        ({_APPARMOR + "ray-worker": "RuntimeDefault"}, True),
        ({_APPARMOR + "sidecar": "runtime/default"}, True),  # no such container
        ({"example.com/owner": "ml", "prometheus.io/scrape": "true"}, False),
        ({_TOLERATIONS: UNKNOWN_SENTINEL, _SECCOMP_POD: UNKNOWN_SENTINEL}, False),  # not known until apply
    ],
)
def test_annotations(annotations: JsonDict, found: bool) -> None:
    (key,) = [k for k in annotations if k not in ("prometheus.io/scrape",)][:1] or [""]
    assert _paths(_worker(annotations)) == ([_annotation(key)] if found else [])


def test_the_annotation_message_says_what_and_where() -> None:
    (finding,) = _findings(_worker({_TOLERATIONS: '[{"key": "gpu", "operator": "Exists"}, {"effect": "NoSchedule"}]'}))
    assert finding[0] == _annotation(_TOLERATIONS)
    assert finding[1].startswith(
        "the tolerations annotation item 1: a toleration without a key must have operator Exists (ValidateTolerationsInPodAnnotations)"
    )
    (mirror,) = _findings(_worker({"kubernetes.io/config.mirror": "x"}))
    assert "needs spec.nodeName" in mirror[1] and "the API server refuses every Pod" in mirror[1]
    assert _findings(_worker({"kubernetes.io/config.mirror": "x"}, nodeName="node-1")) == []


@pytest.mark.parametrize(
    ("annotations", "pod", "own", "suffix"),
    [
        ({_SECCOMP_POD: "runtime/default"}, {"seccompProfile": {"type": "RuntimeDefault"}}, None, None),
        ({_SECCOMP_POD: "docker/default"}, {"seccompProfile": {"type": "RuntimeDefault"}}, None, None),
        (
            {_SECCOMP_POD: "unconfined"},
            {"seccompProfile": {"type": "RuntimeDefault"}},
            None,
            "spec.securityContext.seccompProfile.type",
        ),
        (
            {_SECCOMP_POD: "localhost/a.json"},
            {"seccompProfile": {"type": "Localhost", "localhostProfile": "b.json"}},
            None,
            "spec.securityContext.seccompProfile.localhostProfile",
        ),
        (
            {_SECCOMP_WORKER: "runtime/default"},
            None,
            {"seccompProfile": {"type": "Unconfined"}},
            "spec.containers[0].securityContext.seccompProfile.type",
        ),
        (
            {_SECCOMP_WORKER: "unconfined"},
            {"seccompProfile": {"type": "RuntimeDefault"}},
            None,
            None,
        ),  # only the container's own field
        (
            {_APPARMOR + "ray-worker": "runtime/default"},
            None,
            {"appArmorProfile": {"type": "Unconfined"}},
            "spec.containers[0].securityContext.appArmorProfile.type",
        ),
        (
            {_APPARMOR + "ray-worker": "localhost/a"},
            None,
            {"appArmorProfile": {"type": "Localhost", "localhostProfile": "b"}},
            "spec.containers[0].securityContext.appArmorProfile.localhostProfile",
        ),
        # the API server copies a valid annotation to a container without a profile (applyAppArmorVersionSkew)
        ({_APPARMOR + "ray-worker": "unconfined"}, {"appArmorProfile": {"type": "RuntimeDefault"}}, None, None),
        # "localhost/" gives no field to copy: the pod's profile is compared
        (
            {_APPARMOR + "ray-worker": "localhost/"},
            {"appArmorProfile": {"type": "RuntimeDefault"}},
            None,
            "spec.containers[0].securityContext.appArmorProfile.type",
        ),
    ],
)
def test_annotations_and_fields_agree(
    annotations: JsonDict, pod: JsonDict | None, own: JsonDict | None, suffix: str | None
) -> None:
    doc = _worker(annotations, {"securityContext": own} if own else None, **({"securityContext": pod} if pod else {}))
    assert _paths(doc) == ([f"{TEMPLATE}.{suffix}"] if suffix else [])


@pytest.mark.parametrize(
    ("spec", "suffixes"),
    [
        ({"dnsConfig": {"searches": ["ns1.svc.cluster.local", ".", "my_corp.example.", "a" * 63]}}, []),
        ({"dnsConfig": {"searches": ["Corp.example"]}}, ["dnsConfig.searches[0]"]),
        ({"dnsConfig": {"searches": [f"d{i}.example" for i in range(33)]}}, ["dnsConfig.searches"]),
        ({"dnsConfig": {"searches": ["a" * 60 + "." + "b" * 60] * 20}}, ["dnsConfig.searches"]),  # 2,439 characters
        ({"shareProcessNamespace": True, "hostPID": True}, ["shareProcessNamespace"]),
        ({"shareProcessNamespace": True}, []),
        ({"securityContext": {"supplementalGroupsPolicy": "Strict", "seLinuxChangePolicy": "Recursive"}}, []),
        ({"securityContext": {"supplementalGroupsPolicy": "merge"}}, ["securityContext.supplementalGroupsPolicy"]),
        # MountOption: a gate of the cluster decides (pod-field-needs-feature-gate, high: test_feature_gate_rule.py)
        ({"securityContext": {"seLinuxChangePolicy": "MountOption"}}, []),
        ({"securityContext": {"seLinuxChangePolicy": "mountOption"}}, ["securityContext.seLinuxChangePolicy"]),
        ({"securityContext": {"seLinuxChangePolicy": "recursive"}}, ["securityContext.seLinuxChangePolicy"]),
        (
            {
                "securityContext": {
                    "sysctls": [
                        {"name": "net.core.somaxconn", "value": "1"},
                        {"name": "kernel/shm_rmid_forced", "value": "1"},
                    ]
                }
            },
            [],
        ),
        ({"securityContext": {"sysctls": [{"name": "Net.Core", "value": "1"}]}}, ["securityContext.sysctls[0].name"]),
        (
            {"securityContext": {"sysctls": [{"name": "vm.x", "value": "1"}, {"name": "vm.x", "value": "2"}]}},
            ["securityContext.sysctls[1].name"],
        ),
        (
            {"hostNetwork": True, "securityContext": {"sysctls": [{"name": "net.ipv4.tcp_syncookies", "value": "1"}]}},
            ["securityContext.sysctls[0].name"],
        ),
        (
            {
                "hostIPC": True,
                "securityContext": {
                    "sysctls": [
                        {"name": "kernel.shmmax", "value": "1"},
                        {"name": "fs.mqueue.msg_max", "value": "1"},
                        {"name": "kernel.pid_max", "value": "1"},
                    ]
                },
            },
            ["securityContext.sysctls[0].name", "securityContext.sysctls[1].name"],
        ),
        ({"hostNetwork": True, "securityContext": {"sysctls": [{"name": "kernel.shmmax", "value": "1"}]}}, []),
        ({"tolerations": [{"key": "count", "operator": "Lt", "value": "4"}]}, []),  # a gate decides: high elsewhere
        ({"tolerations": [{"key": "count", "operator": "Lt", "value": "four"}]}, ["tolerations[0].value"]),
    ],
)
def test_security_context_dns_and_tolerations(spec: JsonDict, suffixes: list[str]) -> None:
    assert _paths(_worker(None, **spec)) == sorted(f"{WORKER}.{s}" for s in suffixes)


def _anti(term: JsonDict) -> JsonDict:
    return {"affinity": {"podAntiAffinity": {_REQUIRED: [dict({"topologyKey": "zone"}, **term)]}}}


_ANTI = f"{WORKER}.affinity.podAntiAffinity.{_REQUIRED}[0]"
_FIELDS = f"{WORKER}.affinity.nodeAffinity.{_REQUIRED}.nodeSelectorTerms[0].matchFields[0]"


@pytest.mark.parametrize(
    ("spec", "paths"),
    [
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        _REQUIRED: {
                            "nodeSelectorTerms": [
                                {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]}]}
                            ]
                        }
                    }
                }
            },
            [],
        ),
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        _REQUIRED: {
                            "nodeSelectorTerms": [
                                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["Node_1"]}]}
                            ]
                        }
                    }
                }
            },
            [f"{_FIELDS}.values[0]"],
        ),
        (
            {
                "affinity": {
                    "nodeAffinity": {
                        _REQUIRED: {
                            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.labels", "operator": "Exists"}]}]
                        }
                    }
                }
            },
            [f"{_FIELDS}.key", f"{_FIELDS}.operator"],
        ),
        (
            _anti(
                {
                    "labelSelector": {
                        "matchLabels": {"ray.io/cluster": "raycluster"},
                        "matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["x"]}],
                    }
                }
            ),
            [],
        ),
        (
            _anti({"labelSelector": {"matchLabels": {"app": "has space"}}}),
            [f'{_ANTI}.labelSelector.matchLabels["app"]'],
        ),
        (
            _anti({"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}}),
            [f"{_ANTI}.labelSelector.matchExpressions[0].values"],
        ),
        (
            _anti(
                {"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "Exists", "values": ["ml"]}]}}
            ),
            [f"{_ANTI}.namespaceSelector.matchExpressions[0].values"],
        ),
        (
            _anti(
                {
                    "labelSelector": {"matchLabels": {"app": "ray"}},
                    "matchLabelKeys": ["ray.io/cluster"],
                    "mismatchLabelKeys": ["team"],
                }
            ),
            [],
        ),
        # ray.io/cluster: the operator labels every Ray Pod with it, so the API server adds it to the selector again
        (
            _anti({"labelSelector": {"matchLabels": {"ray.io/cluster": "a"}}, "matchLabelKeys": ["ray.io/cluster"]}),
            [f"{_ANTI}.matchLabelKeys[0]"],
        ),
        # a key the Pod does not carry is not added: no duplicate
        (_anti({"labelSelector": {"matchLabels": {"team": "a"}}, "matchLabelKeys": ["team"]}), []),
        (
            _anti({"labelSelector": {}, "matchLabelKeys": ["team"], "mismatchLabelKeys": ["team"]}),
            [f"{_ANTI}.matchLabelKeys[0]"],
        ),
        (_anti({"matchLabelKeys": ["team"]}), [f"{_ANTI}.matchLabelKeys"]),
        (_anti({"labelSelector": {}, "mismatchLabelKeys": ["-team"]}), [f"{_ANTI}.mismatchLabelKeys[0]"]),
        (
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"app": "ray"}},
                        "matchLabelKeys": ["pod-template-hash"],
                    }
                ]
            },
            [],
        ),
        # the Pod has no label app: the API server adds nothing to the selector (applyMatchLabelKeys), no duplicate
        (
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                        "matchLabelKeys": ["app"],
                    }
                ]
            },
            [],
        ),
        (
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"ray.io/cluster": "c"}},
                        "matchLabelKeys": ["ray.io/cluster"],
                    }
                ]
            },
            [f"{WORKER}.topologySpreadConstraints[0].matchLabelKeys[0]"],
        ),
        (
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "matchLabelKeys": ["app"],
                    }
                ]
            },
            [f"{WORKER}.topologySpreadConstraints[0].matchLabelKeys"],
        ),
        (
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"app": "ray"}},
                        "matchLabelKeys": ["a/b/c"],
                    }
                ]
            },
            [f"{WORKER}.topologySpreadConstraints[0].matchLabelKeys[0]"],
        ),
        (
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "in", "values": ["ray"]}]},
                    }
                ]
            },
            [f"{WORKER}.topologySpreadConstraints[0].labelSelector.matchExpressions[0].operator"],
        ),
    ],
)
def test_selectors(spec: JsonDict, paths: list[str]) -> None:
    assert _paths(_worker(None, **spec)) == sorted(paths)


def test_the_submitter_pod_has_no_ray_cluster_label() -> None:
    """The Job controller creates the submitter Pod from its template: ray.io/cluster is not added to it."""
    term = {
        "topologyKey": "zone",
        "labelSelector": {"matchLabels": {"ray.io/cluster": "a"}},
        "matchLabelKeys": ["ray.io/cluster"],
    }
    template = {
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "submit", "image": "rayproject/ray:2.52.0"}],
            "affinity": {"podAffinity": {_REQUIRED: [term]}},
        }
    }
    assert _paths(example_job(submitterPodTemplate=template)) == []
    template["metadata"] = {"labels": {"ray.io/cluster": "a"}}
    assert _paths(example_job(submitterPodTemplate=template)) == [
        f"spec.submitterPodTemplate.spec.affinity.podAffinity.{_REQUIRED}[0].matchLabelKeys[0]"
    ]


def test_messages_name_the_check_and_the_fix() -> None:
    (policy,) = _findings(_worker(None, securityContext={"seLinuxChangePolicy": "mountOption"}))
    assert policy[1].startswith(
        "seLinuxChangePolicy 'mountOption' is not Recursive (nor MountOption, where the SELinuxMount gate is on) (case matters) (validateSELinuxChangePolicy)"
    )
    (host,) = _findings(
        _worker(None, hostNetwork=True, securityContext={"sysctls": [{"name": "net.core.somaxconn", "value": "1"}]})
    )
    assert host[1].startswith(
        "sysctl 'net.core.somaxconn' is namespaced and the Pod shares that namespace with the node (hostNetwork true)"
    )
    spread = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "ray"}},
        "matchLabelKeys": ["app"],
    }

    def labelled(doc: JsonDict) -> None:
        worker_of(doc)["template"].update(metadata={"labels": {"app": "ray"}})
        worker_of(doc)["template"]["spec"]["topologySpreadConstraints"] = [spread]

    assert _findings(_worker(None, topologySpreadConstraints=[spread])) == []  # the Pod has no label app
    ((path, message),) = _findings(example(labelled))
    assert path == f"{WORKER}.topologySpreadConstraints[0].matchLabelKeys[0]"
    assert message.startswith(
        "matchLabelKeys 'app' is also a key of the labelSelector (the API server adds the Pod's app label to it) (ValidateMatchLabelKeysAndMismatchLabelKeys)"
    )


def test_values_not_known_until_apply_are_not_judged() -> None:
    assert _findings(_worker({"kubernetes.io/config.mirror": "x"}, nodeName=UNKNOWN_SENTINEL)) == []
    localhost = {"seccompProfile": {"type": "Localhost", "localhostProfile": UNKNOWN_SENTINEL}}
    assert _findings(_worker({_SECCOMP_POD: "localhost/a.json"}, securityContext=localhost)) == []
    spread = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": UNKNOWN_SENTINEL,
        "matchLabelKeys": ["app"],
    }
    assert _findings(_worker(None, topologySpreadConstraints=[spread])) == []
    sysctls = {"sysctls": [{"name": UNKNOWN_SENTINEL, "value": "1"}, {"name": "net.core.somaxconn", "value": "1"}]}
    assert _findings(_worker(None, hostNetwork=UNKNOWN_SENTINEL, securityContext=sysctls)) == []
