"""The boundaries of the rules docs/kubernetes-validation.md added (``rules/pod_spec.py``, ``rules/children.py``,
``worker-group-name-invalid``, and what ``pod_validation.py`` gained: envFrom, lifecycle hooks, volume sources and
file modes): each side of what Kubernetes' validation refuses, values not known until apply, and the objects the
operator never builds."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._examples import example, example_cronjob, example_job, head_of, worker_of

JsonDict = dict[str, Any]
WORKER = "spec.workerGroupSpecs[0].template.spec"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_SPREAD = {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
_DASHBOARD_UDP = {"name": "app2", "port": 8265, "protocol": "UDP"}  # 8265/TCP is KubeRay's, 8265/UDP is free
_SECRET_999 = {"name": "s", "items": [{"key": "k", "path": "p", "mode": 999}]}


def _paths(doc: JsonDict, rule_id: str) -> list[str]:
    return [f.path for f in rules.check(doc) if f.rule_id == rule_id]


def _worker_pod(**fields: Any) -> JsonDict:
    return example(lambda d: worker_of(d)["template"]["spec"].update(fields))


@pytest.mark.parametrize(
    ("toleration", "suffix"),
    [
        ({"key": "gpu", "operator": "Exists"}, None),
        ({"operator": "Exists"}, None),  # tolerates every taint
        ({"key": "gpu", "value": "a100", "effect": "NoSchedule"}, None),  # operator "" is Equal
        ({"key": "gpu", "operator": "Gt", "value": "3"}, None),  # a gate decides: pod-field-needs-feature-gate, high
        ({"key": "gpu", "operator": "Lt", "value": "3.5"}, "value"),  # refused with the gate on too: no integer
        ({"key": "gpu", "operator": "Gt", "value": "03"}, "value"),  # IsDecimalInteger: no leading zero
        ({"key": "gpu", "operator": "Gt", "value": "9223372036854775808"}, "value"),  # past int64
        ({"operator": "Gt", "value": "3"}, "operator"),  # no key: operator must be Exists, gate or not
        ({"key": "gpu", "operator": "Equal", "value": "a100", "effect": "NoExecute", "tolerationSeconds": 30}, None),
        ({"key": "gpu", "operator": "exists"}, "operator"),
        ({"effect": "NoSchedule"}, "operator"),  # no key: operator must be Exists
        ({"key": "gpu", "operator": "Exists", "value": "a100"}, "value"),
        ({"key": "gpu", "value": "A 100"}, "value"),
        ({"key": "gpu vendor", "operator": "Exists"}, "key"),
        ({"key": "gpu", "operator": "Exists", "effect": "noSchedule"}, "effect"),
        ({"key": "gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30}, "effect"),
        ({"key": UNKNOWN_SENTINEL, "operator": "exists"}, None),  # not known until apply: no verdict
    ],
)
def test_tolerations(toleration: JsonDict, suffix: str | None) -> None:
    found = _paths(_worker_pod(tolerations=[toleration]), "pod-spec-value-invalid")
    assert found == ([] if suffix is None else [f"{WORKER}.tolerations[0].{suffix}"])


def test_node_affinity_values_are_labels_only_in_required_terms() -> None:
    """ValidatePreferredSchedulingTerms allows any value in a preferred term (it can match on a one-node cluster)."""
    requirement = {"key": "zone", "operator": "In", "values": ["us east"]}
    required = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [requirement]}]}}
    preferred = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference": {"matchExpressions": [requirement]}}]}
    at = f"{WORKER}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    assert _paths(_worker_pod(affinity={"nodeAffinity": required}), "pod-spec-value-invalid") == [f"{at}.matchExpressions[0].values[0]"]
    assert _paths(_worker_pod(affinity={"nodeAffinity": preferred}), "pod-spec-value-invalid") == []


@pytest.mark.parametrize(
    ("fields", "suffix"),
    [
        ({"dnsPolicy": "ClusterFirstWithHostNet"}, None),
        ({"dnsPolicy": "clusterfirst"}, "dnsPolicy"),
        ({"preemptionPolicy": "Never"}, None),
        ({"preemptionPolicy": "never"}, "preemptionPolicy"),
        ({"runtimeClassName": "gvisor"}, None),
        ({"runtimeClassName": "gVisor"}, "runtimeClassName"),
        ({"hostname": "worker.0"}, "hostname"),
        ({"os": {"name": "Linux"}}, "os.name"),
        ({"nodeSelector": {"cloud.google.com/gke-nodepool": "gpu-pool"}}, None),
        ({"activeDeadlineSeconds": 0}, "activeDeadlineSeconds"),
        ({"securityContext": {"runAsUser": 1000, "fsGroup": 100, "supplementalGroups": [100]}}, None),
        ({"securityContext": {"supplementalGroups": [2**31]}}, "securityContext.supplementalGroups[0]"),
        ({"topologySpreadConstraints": [_SPREAD]}, "topologySpreadConstraints[0].maxSkew"),
        ({"nodeName": "node-1", "schedulingGates": [{"name": "example.com/wait"}]}, "nodeName"),
        ({"dnsPolicy": "None", "dnsConfig": {"nameservers": ["8.8.8.8"], "options": [{"name": "ndots", "value": "2"}]}}, None),
        ({"dnsConfig": {"nameservers": ["dns.google"]}}, "dnsConfig.nameservers[0]"),
        ({"dnsConfig": {"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "010.0.0.1"]}}, "dnsConfig.nameservers"),
        ({"dnsConfig": {"options": [{"value": "2"}]}}, "dnsConfig.options[0].name"),
        ({"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["gcs.local"]}]}, None),
        ({"readinessGates": [{"conditionType": "example.com/ready"}]}, None),
        ({"readinessGates": [{"conditionType": "ready now"}]}, "readinessGates[0].conditionType"),
        ({"affinity": {"podAntiAffinity": {_REQUIRED: [{"topologyKey": "zone", "namespaces": ["Team_A"]}]}}}, f"affinity.podAntiAffinity.{_REQUIRED}[0].namespaces[0]"),
        ({"hostAliases": [{"ip": "gcs", "hostnames": ["gcs.local"]}]}, "hostAliases[0].ip"),
        ({"affinity": {"nodeAffinity": {_REQUIRED: {"nodeSelectorTerms": []}}}}, f"affinity.nodeAffinity.{_REQUIRED}.nodeSelectorTerms"),
        ({"topologySpreadConstraints": [dict(_SPREAD, maxSkew=1, nodeTaintsPolicy="honor")]}, "topologySpreadConstraints[0].nodeTaintsPolicy"),
    ],
)
def test_pod_spec_values(fields: JsonDict, suffix: str | None) -> None:
    found = _paths(_worker_pod(**fields), "pod-spec-value-invalid")
    assert found == ([] if suffix is None else [f"{WORKER}.{suffix}"])


def test_a_security_id_outside_int64_is_a_schema_finding_not_this_rules() -> None:
    assert _paths(_worker_pod(securityContext={"runAsUser": 2**63}), "pod-spec-value-invalid") == []
    assert _paths(_worker_pod(securityContext={"runAsUser": 2**31}), "pod-spec-value-invalid") == [f"{WORKER}.securityContext.runAsUser"]


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        (example(lambda d: worker_of(d).update(groupName="GPU-Workers")), None),  # lower-cased into the Pod name
        (example(lambda d: worker_of(d).update(groupName="gpu.v100")), None),  # dots: a subdomain
        (example(lambda d: worker_of(d).update(groupName="gpu_v100")), "spec.workerGroupSpecs[0].groupName"),
        (example(lambda d: worker_of(d).update(groupName="gpu.")), "spec.workerGroupSpecs[0].groupName"),  # label
        (example(lambda d: worker_of(d).update(groupName="g" * 64)), "spec.workerGroupSpecs[0].groupName"),  # label
        (example_cronjob(), None),
    ],
)
def test_worker_group_names(doc: JsonDict, path: str | None) -> None:
    assert _paths(doc, "worker-group-name-invalid") == ([] if path is None else [path])


def test_a_long_cluster_name_cuts_the_group_out_of_the_pod_name() -> None:
    """utils.PodName keeps 50 characters of <cluster>-<group>: past them the group's '_' never reaches the name."""
    doc = example(lambda d: worker_of(d).update(groupName="gpu_v100"))
    doc["metadata"]["name"] = "c" * 50
    assert _paths(doc, "worker-group-name-invalid") == []
    job = example_job(name="j" * 44)
    job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["groupName"] = "gpu_v100"  # 44 + 6 = 50: cut away
    assert _paths(job, "worker-group-name-invalid") == []


@pytest.mark.parametrize("name", ["${ray_cluster_name}", "$RAY_CLUSTER_NAME", "ray_cluster"])
def test_a_refused_cluster_name_is_reported_at_the_name_not_at_the_group(name: str) -> None:
    """A template's unrendered name makes <cluster>-<group>-worker- no DNS-1123 subdomain, but the operator refuses
    the object first (ValidateRayClusterMetadata, ValidateRayJobMetadata) and builds no Pod: the name rules say so
    at metadata.name, and a valid group name is not blamed (the real-world corpus's Terraform and envsubst
    templates)."""
    cluster = example(lambda d: d["metadata"].update(name=name))
    found = {f.rule_id: f.path for f in rules.check(cluster) if f.severity == "critical"}
    assert found.get("cluster-name-invalid") == "metadata.name"
    assert "worker-group-name-invalid" not in found
    job = example_job(name=name)
    assert _paths(job, "worker-group-name-invalid") == []
    assert "metadata.name" in _paths(job, "rayjob-name-not-dns1035")
    # the group's own label value is judged whatever the cluster's name
    bad_label = example(lambda d: worker_of(d).update(groupName="gpu."))
    bad_label["metadata"]["name"] = name
    assert _paths(bad_label, "worker-group-name-invalid") == ["spec.workerGroupSpecs[0].groupName"]


@pytest.mark.parametrize(
    ("service", "suffix"),
    [
        ({"spec": {"type": "NodePort", "ports": [{"name": "app", "port": 9000}]}}, None),
        ({"spec": {"ports": [{"name": "app", "port": 9000, "protocol": "UDP"}, _DASHBOARD_UDP]}}, None),
        ({"spec": {"ports": [{"name": "app", "port": 8265}]}}, "ports[0].port"),  # KubeRay's dashboard port
        ({"spec": {"ports": [{"name": "App", "port": 9000}]}}, "ports[0].name"),
        ({"spec": {"ports": [{"name": "metrics", "port": 9090}]}}, "ports[0].name"),  # KubeRay adds 'metrics'
        ({"spec": {"ports": [{"name": "app", "port": 9000, "protocol": "tcp"}]}}, "ports[0].protocol"),
        ({"spec": {"type": "loadbalancer"}}, "type"),
        ({"spec": {"sessionAffinity": "clientIP"}}, "sessionAffinity"),
        ({"spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local"}}, None),
        ({"spec": {"externalTrafficPolicy": "Local"}}, "externalTrafficPolicy"),  # a ClusterIP Service
        ({"spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 600}}}}, None),
        ({"spec": {"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 0}}}}, "sessionAffinityConfig.clientIP.timeoutSeconds"),
        ({"spec": {"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 600}}}}, None),  # None: defaulting drops it
        ({"spec": {"internalTrafficPolicy": "local"}}, "internalTrafficPolicy"),
        ({"spec": {"type": "LoadBalancer", "loadBalancerClass": "service.k8s.aws/nlb"}}, None),
        ({"spec": {"loadBalancerClass": "service.k8s.aws/nlb"}}, "loadBalancerClass"),  # a ClusterIP Service
        ({"spec": {"type": "NodePort", "ports": [{"name": "app", "port": 9000, "nodePort": 30900}]}}, None),
        ({"spec": {"ports": [{"name": "app", "port": 9000, "nodePort": 30900}]}}, "ports[0].nodePort"),
        ({"spec": {"ports": UNKNOWN_SENTINEL}}, None),
    ],
)
def test_custom_head_service(service: JsonDict, suffix: str | None) -> None:
    doc = example(lambda d: head_of(d).update(headService=service))
    found = _paths(doc, "head-service-invalid")
    assert found == ([] if suffix is None else [f"spec.headGroupSpec.headService.spec.{suffix}"])


def test_head_service_ports_of_an_unknown_head_port_are_not_judged() -> None:
    doc = example(lambda d: head_of(d).update(headService={"spec": {"ports": [{"name": "app", "port": 8265}]}}))
    head_of(doc)["template"]["spec"]["containers"][0]["ports"][0]["name"] = UNKNOWN_SENTINEL
    assert _paths(doc, "head-service-invalid") == []


@pytest.mark.parametrize(
    ("options", "annotation", "path"),
    [
        ({"host": "ray.example.com", "path": "/ray", "pathType": "Exact"}, None, None),
        ({"host": "*.example.com"}, None, None),
        ({"path": "ray", "pathType": "ImplementationSpecific"}, None, "spec.headGroupSpec.ingressOptions.path"),
        ({"path": "", "pathType": "ImplementationSpecific"}, None, None),
        ({"path": "/ray/"}, None, None),
        ({"path": "/ray/."}, None, "spec.headGroupSpec.ingressOptions.path"),
        ({"host": "Ray.example.com"}, None, "spec.headGroupSpec.ingressOptions.host"),
        ({"host": "a.*.example.com"}, None, "spec.headGroupSpec.ingressOptions.host"),
        ({"tls": [{"hosts": ["10.0.0.1"], "secretName": "ray-tls"}]}, None, None),  # an IP is a subdomain for TLS
        ({"tls": [{"hosts": ["*"]}]}, None, "spec.headGroupSpec.ingressOptions.tls[0].hosts[0]"),
        ({}, "nginx", None),
        ({}, "", 'metadata.annotations["kubernetes.io/ingress.class"]'),
    ],
)
def test_head_ingress(options: JsonDict, annotation: str | None, path: str | None) -> None:
    doc = example(lambda d: head_of(d).update(enableIngress=True, ingressOptions=options))
    if annotation is not None:
        doc["metadata"]["annotations"] = {"kubernetes.io/ingress.class": annotation}
    assert _paths(doc, "head-ingress-invalid") == ([] if path is None else [path])
    head_of(doc)["enableIngress"] = False  # no Ingress is built
    assert _paths(doc, "head-ingress-invalid") == []


def test_the_submitter_backoff_limit_only_where_a_job_is_created() -> None:
    assert _paths(example_job(submitterConfig={"backoffLimit": -1}), "rayjob-submitter-backoff-limit-negative") == ["spec.submitterConfig.backoffLimit"]
    interactive = example_job(submissionMode="InteractiveMode", submitterConfig={"backoffLimit": -1})
    assert _paths(interactive, "rayjob-submitter-backoff-limit-negative") == []
    cron = example_cronjob()
    cron["spec"]["jobTemplate"]["submitterConfig"] = {"backoffLimit": -1}
    assert _paths(cron, "rayjob-submitter-backoff-limit-negative") == ["spec.jobTemplate.submitterConfig.backoffLimit"]


@pytest.mark.parametrize(
    ("volume", "suffix"),
    [
        ({"name": "v", "emptyDir": {}}, None),
        ({"name": "v"}, ""),
        ({"name": "v", "emptyDir": {}, "secret": {"secretName": "s"}}, ".secret"),
        ({"name": "v", "secret": {"secretName": "s", "defaultMode": 420}}, None),  # 0644
        ({"name": "v", "configMap": {"name": "c", "items": [{"key": "k", "path": "p", "mode": 755}]}}, ".configMap.items[0].mode"),
        ({"name": "v", "projected": {"sources": [{"secret": _SECRET_999}]}}, ".projected.sources[0].secret.items[0].mode"),
    ],
)
def test_volume_sources_and_modes(volume: JsonDict, suffix: str | None) -> None:
    found = _paths(_worker_pod(volumes=[volume]), "pod-volume-invalid")
    assert found == ([] if suffix is None else [f"{WORKER}.volumes[0]{suffix}"])


@pytest.mark.parametrize(
    ("container", "suffix"),
    [
        ({"envFrom": [{"configMapRef": {"name": "cfg"}, "prefix": "CFG_"}]}, None),
        ({"envFrom": [{"prefix": "CFG_"}]}, "envFrom[0]"),
        ({"envFrom": [{"secretRef": {"name": "creds"}, "prefix": "A=B"}]}, "envFrom[0].prefix"),
        ({"lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}, None),
        ({"lifecycle": {"preStop": {}}}, "lifecycle.preStop"),
        ({"lifecycle": {"postStart": {"exec": {"command": []}}}}, "lifecycle.postStart.exec.command"),
        ({"readinessProbe": {"httpGet": {"port": 8265, "scheme": "HTTPS"}}}, None),
        ({"readinessProbe": {"httpGet": {"port": 8265, "scheme": "https"}}}, "readinessProbe.httpGet.scheme"),
        ({"volumeMounts": [{"name": "data", "mountPath": "/cfg", "subPath": "conf/ray.yaml"}]}, None),
        ({"volumeMounts": [{"name": "data", "mountPath": "/cfg", "mountPropagation": "HostToContainer"}]}, None),
        ({"volumeMounts": [{"name": "data", "mountPath": "/cfg", "mountPropagation": "Bidirectional"}]}, "volumeMounts[0].mountPropagation"),
        ({"readinessProbe": {"tcpSocket": {"port": 8265}, "terminationGracePeriodSeconds": 5}}, "readinessProbe.terminationGracePeriodSeconds"),
        ({"volumeMounts": [{"name": "data", "mountPath": "/cfg", "subPath": "/ray.yaml"}]}, "volumeMounts[0].subPath"),
        ({"volumeMounts": [{"name": "data", "mountPath": "/cfg", "subPathExpr": "$(POD)/../x"}]}, "volumeMounts[0].subPathExpr"),
    ],
)
def test_env_from_handlers_and_sub_paths(container: JsonDict, suffix: str | None) -> None:
    doc = example(lambda d: worker_of(d)["template"]["spec"]["containers"][0].update(container))
    worker_of(doc)["template"]["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}]
    found = [f.path for f in rules.check(doc) if f.rule_id in ("pod-env-var-invalid", "pod-probe-invalid", "pod-volume-invalid")]
    assert found == ([] if suffix is None else [f"{WORKER}.containers[0].{suffix}"])


def test_a_sidecar_init_container_may_have_probes() -> None:
    init = {"name": "proxy", "image": "envoy:1", "restartPolicy": "Always", "readinessProbe": {"tcpSocket": {"port": 9901}}}
    assert _paths(_worker_pod(initContainers=[init]), "pod-probe-invalid") == []
    init = {**init, "restartPolicy": UNKNOWN_SENTINEL}
    assert _paths(_worker_pod(initContainers=[init]), "pod-probe-invalid") == []
    del init["restartPolicy"]
    assert _paths(_worker_pod(initContainers=[init]), "pod-probe-invalid") == [f"{WORKER}.initContainers[0].readinessProbe"]


def test_the_autoscaler_sidecar_from_autoscaler_options() -> None:
    """BuildAutoscalerContainer copies autoscalerOptions' imagePullPolicy, env and envFrom into the head Pod."""
    options = {"imagePullPolicy": "ifNotPresent", "env": [{"name": "A=B", "value": "1"}]}
    doc = example(lambda d: d["spec"].update(enableInTreeAutoscaling=True, autoscalerOptions=options))
    found = [(f.rule_id, f.path) for f in rules.check(doc) if f.severity == "critical"]
    assert found == [("pod-env-var-invalid", "spec.autoscalerOptions.env[0].name"), ("pod-policy-invalid", "spec.autoscalerOptions.imagePullPolicy")]
    doc["spec"]["enableInTreeAutoscaling"] = False  # no sidecar
    assert [f for f in rules.check(doc) if f.severity == "critical"] == []


def test_the_containers_kuberay_adds_take_their_names() -> None:
    sidecar = {"name": "autoscaler", "image": "busybox:1.36"}
    doc = example(lambda d: head_of(d)["template"]["spec"]["containers"].append(sidecar))
    assert _paths(doc, "pod-container-name-invalid") == []  # no autoscaling: no sidecar of that name
    doc["spec"]["enableInTreeAutoscaling"] = True
    assert _paths(doc, "pod-container-name-invalid") == ["spec.headGroupSpec.template.spec.containers[1].name"]
    waiting = _worker_pod(initContainers=[{"name": "wait-gcs-ready", "image": "busybox:1.36"}])
    assert _paths(waiting, "pod-container-name-invalid") == [f"{WORKER}.initContainers[0].name"]


def test_a_host_port_with_host_network() -> None:
    ports = [{"containerPort": 9000, "hostPort": 9000}, {"containerPort": 9001}, {"containerPort": 9002, "hostPort": 9003}]
    container = {"name": "w", "image": "rayproject/ray:2.52.0", "ports": ports}
    doc = _worker_pod(hostNetwork=True, containers=[container])
    assert _paths(doc, "pod-spec-value-invalid") == [f"{WORKER}.containers[0].ports[2].hostPort"]
    assert _paths(_worker_pod(containers=[container]), "pod-spec-value-invalid") == []  # no hostNetwork



def test_host_ports_once_per_pod() -> None:
    first = {"name": "a", "image": "busybox:1.36", "ports": [{"containerPort": 80, "hostPort": 8080}]}
    second = {"name": "b", "image": "busybox:1.36", "ports": [{"containerPort": 81, "hostPort": 8080}]}
    assert _paths(_worker_pod(containers=[first, second]), "pod-spec-value-invalid") == [f"{WORKER}.containers[1].ports[0].hostPort"]
    udp = {**second, "ports": [{"containerPort": 81, "hostPort": 8080, "protocol": "UDP"}]}
    assert _paths(_worker_pod(containers=[first, udp]), "pod-spec-value-invalid") == []
    # with hostNetwork a port's hostPort is its containerPort (the API server's defaulting)
    same = [{"name": n, "image": "busybox:1.36", "ports": [{"containerPort": 80}]} for n in ("a", "b")]
    assert _paths(_worker_pod(containers=same), "pod-spec-value-invalid") == []
    assert _paths(_worker_pod(containers=same, hostNetwork=True), "pod-spec-value-invalid") == [f"{WORKER}.containers[1].ports[0].hostPort"]


_CLAIM = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}


@pytest.mark.parametrize(
    ("volume", "suffix"),
    [
        ({"hostPath": {"path": "/dev/shm", "type": "DirectoryOrCreate"}}, None),
        ({"hostPath": {"path": "/dev/shm", "type": "directory"}}, "hostPath.type"),
        ({"hostPath": {"path": "/data/../etc"}}, "hostPath.path"),
        ({"persistentVolumeClaim": {"claimName": "ray-data"}}, None),
        ({"persistentVolumeClaim": {"claimName": "Ray_Data"}}, "persistentVolumeClaim.claimName"),
        ({"persistentVolumeClaim": {"claimName": UNKNOWN_SENTINEL}}, None),
        ({"secret": {"secretName": "certs", "items": [{"key": "tls.crt", "path": "certs/tls.crt"}]}}, None),
        ({"secret": {}}, "secret.secretName"),
        ({"configMap": {"name": "cfg", "items": [{"key": "", "path": "a"}]}}, "configMap.items[0].key"),
        ({"configMap": {"name": "cfg", "items": [{"key": "a", "path": "../a"}]}}, "configMap.items[0].path"),
        ({"downwardAPI": {"items": [{"path": "labels"}]}}, "downwardAPI.items[0]"),
        ({"nfs": {"server": "nfs.local", "path": "exports/ray"}}, "nfs.path"),
        ({"csi": {"driver": "gcsfuse.csi.storage.gke.io"}}, None),
        ({"csi": {"driver": "gcs fuse"}}, "csi.driver"),
        ({"ephemeral": {"volumeClaimTemplate": {"spec": _CLAIM}}}, None),
        ({"ephemeral": {}}, "ephemeral.volumeClaimTemplate"),
        ({"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, accessModes=["RWO"])}}}, "ephemeral.volumeClaimTemplate.spec.accessModes[0]"),
        ({"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, resources={"requests": {"storage": "0"}})}}}, "ephemeral.volumeClaimTemplate.spec.resources.requests.storage"),
        ({"ephemeral": {"volumeClaimTemplate": {"spec": dict(_CLAIM, resources=UNKNOWN_SENTINEL)}}}, None),
        ({"emptyDir": {"sizeLimit": "-1Gi"}}, "emptyDir.sizeLimit"),
        ({"emptyDir": {"sizeLimit": "0"}}, None),  # only a negative limit is refused
        ({"nfs": {"server": "", "path": "/exports"}}, "nfs.server"),
        ({"gitRepo": {"repository": "https://example.com/r.git", "directory": "../x"}}, "gitRepo"),
    ],
)
def test_volume_source_fields(volume: JsonDict, suffix: str | None) -> None:
    found = _paths(_worker_pod(volumes=[{"name": "v", **volume}]), "pod-volume-source-invalid")
    assert found == ([] if suffix is None else [f"{WORKER}.volumes[0].{suffix}"])


@pytest.mark.parametrize(
    ("context", "suffix"),
    [
        ({"seccompProfile": {"type": "RuntimeDefault"}, "allowPrivilegeEscalation": False}, None),
        ({"seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/ray.json"}}, None),
        ({"seccompProfile": {"type": "runtime/default"}}, "seccompProfile.type"),
        ({"seccompProfile": {"type": "Localhost"}}, "seccompProfile.localhostProfile"),
        ({"appArmorProfile": {"type": "RuntimeDefault", "localhostProfile": "x"}}, "appArmorProfile.localhostProfile"),
        ({"seccompProfile": {"type": UNKNOWN_SENTINEL}}, None),
        ({"privileged": True, "allowPrivilegeEscalation": False}, "allowPrivilegeEscalation"),
        ({"capabilities": {"add": ["CAP_SYS_ADMIN"]}, "allowPrivilegeEscalation": False}, "allowPrivilegeEscalation"),
        ({"capabilities": {"add": ["SYS_ADMIN"]}, "allowPrivilegeEscalation": False}, None),  # only the CAP_ spelling
    ],
)
def test_container_security_contexts(context: JsonDict, suffix: str | None) -> None:
    doc = example(lambda d: worker_of(d)["template"]["spec"]["containers"][0].update(securityContext=context))
    found = _paths(doc, "pod-spec-value-invalid")
    assert found == ([] if suffix is None else [f"{WORKER}.containers[0].securityContext.{suffix}"])


def test_pod_security_context_policies() -> None:
    doc = _worker_pod(securityContext={"fsGroupChangePolicy": "onRootMismatch", "seccompProfile": {"type": "Unconfined"}})
    assert _paths(doc, "pod-spec-value-invalid") == [f"{WORKER}.securityContext.fsGroupChangePolicy"]


def test_a_cluster_the_operator_never_builds_is_not_judged() -> None:
    """A RayJob's rayClusterSpec while clusterSelector picks a cluster, or a spec managedBy another controller,
    gives no Pods, Service or Ingress (built_cluster_specs)."""
    job = example_job(clusterSelector={"ray.io/cluster": "shared"})
    job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["groupName"] = "gpu_workers"
    job["spec"]["rayClusterSpec"]["headGroupSpec"]["serviceType"] = "loadBalancer"
    found = {f.rule_id for f in rules.check(job)}
    assert not found & {"worker-group-name-invalid", "head-service-invalid"}
    cluster = example(lambda d: worker_of(d).update(groupName="gpu_workers"))
    cluster["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    assert _paths(cluster, "worker-group-name-invalid") == []


def test_the_autoscaler_sidecar_resources() -> None:
    options = {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "500m"}}}
    doc = example(lambda d: d["spec"].update(enableInTreeAutoscaling=True, autoscalerOptions=options))
    assert _paths(doc, "pod-resources-invalid") == ["spec.autoscalerOptions.resources.requests"]
    doc["spec"]["enableInTreeAutoscaling"] = False
    assert _paths(doc, "pod-resources-invalid") == []
