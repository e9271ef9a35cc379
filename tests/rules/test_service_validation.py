"""The Services KubeRay builds (``rules/_services.py``): what validateService refuses of a custom headService's spec
(ExternalName, the LoadBalancer-only fields, CIDRs and IP addresses, targetPort and appProtocol, healthCheckNodePort,
trafficDistribution, the cluster IPs and families) and its annotations, and a RayService's serveService as
BuildServeService copies it (its ports merged with the head's serving ports, by KubeRay version). Each side of the
API server's line, values not known yet, the version and gate that change what reaches the Service."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.kubernetes import (
    LOAD_BALANCER_SOURCE_RANGES_ANNOTATION,
    TOPOLOGY_AWARE_HINTS_ANNOTATION,
    TOPOLOGY_MODE_ANNOTATION,
)
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules import Target
from pulumi_kuberay.rules._examples import example, example_job, example_service, head_of
from pulumi_kuberay.rules._services import cidr_error, endpoint_ip_error, ip_error

JsonDict = dict[str, Any]
HEAD = "head-service-invalid"
SERVE = "serve-service-invalid"
_LB = "LoadBalancer"


def _found(doc: JsonDict, rule_id: str, target: Target | None = None) -> list[tuple[str, str]]:
    return [(f.path, f.message) for f in rules.check(doc, target) if f.rule_id == rule_id]


def _paths(doc: JsonDict, rule_id: str, target: Target | None = None) -> list[str]:
    return [path for path, _ in _found(doc, rule_id, target)]


def _head_service(spec: JsonDict, **head: Any) -> JsonDict:
    return example(lambda d: (head_of(d).update(headService={"spec": spec}), head_of(d).update(head)))


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("10.0.0.1", None),
        ("2001:db8::1", None),
        ("010.0.0.1", "must not have leading 0s"),
        ("::ffff:10.0.0.1", "must not be an IPv4-mapped IPv6 address (write 10.0.0.1)"),
        ("fe80::1%eth0", "is not an IP address"),  # ParseIPSloppy knows no zone
        ("10.0.0.256", "is not an IP address"),
        ("ray-head", "is not an IP address"),
    ],
)
def test_ip_addresses_as_a_v1_36_api_server_reads_them(value: str, error: str | None) -> None:
    assert ip_error(value) == error


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("10.0.0.0/8", None),
        ("2001:db8::/32", None),
        ("10.0.0.1/8", "must not have bits set beyond the prefix length (write 10.0.0.0/8)"),
        ("10.0.0.0/08", "must not have leading 0s in its prefix length"),
        ("10.0.0.0", "is not a CIDR (an address, '/' and a prefix length, e.g. 10.0.0.0/8)"),
        ("10.0.0.0/255.0.0.0", "is not a CIDR (an address, '/' and a prefix length, e.g. 10.0.0.0/8)"),
        ("10.0.0.0/33", "has a prefix length longer than its address"),
        ("010.0.0.0/8", "must not have leading 0s"),
    ],
)
def test_cidrs_as_a_v1_36_api_server_reads_them(value: str, error: str | None) -> None:
    assert cidr_error(value) == error


@pytest.mark.parametrize(
    ("value", "refused"),
    [("1.2.3.4", False), ("0.0.0.0", True), ("127.0.0.2", True), ("::1", True), ("169.254.1.1", True),
     ("fe80::1", True), ("224.0.0.9", True), ("224.0.1.9", False), ("ff02::1", True), ("ff05::1", False)],
)  # fmt: skip
def test_endpoint_ips(value: str, refused: bool) -> None:
    assert (endpoint_ip_error(value) is not None) is refused


@pytest.mark.parametrize(
    ("spec", "suffixes"),
    [
        ({"type": "ExternalName", "externalName": "ray.example.com."}, []),  # a trailing dot: fully qualified
        ({"type": "ExternalName"}, ["externalName"]),
        ({"type": "ExternalName", "externalName": "Ray.Example"}, ["externalName"]),
        (
            {"type": "ExternalName", "externalName": "a.example", "clusterIP": "None", "ipFamilyPolicy": ""},
            ["clusterIP", "ipFamilyPolicy"],
        ),
        ({"type": _LB, "allocateLoadBalancerNodePorts": False}, []),
        ({"type": "NodePort", "allocateLoadBalancerNodePorts": True}, ["allocateLoadBalancerNodePorts"]),
        ({"type": _LB, "loadBalancerSourceRanges": [" 10.0.0.0/8 ", "2001:db8::/32"]}, []),  # space-padded: allowed
        ({"type": _LB, "loadBalancerSourceRanges": ["10.0.0.0/8", "10.1.1.1/16"]}, ["loadBalancerSourceRanges[1]"]),
        ({"loadBalancerSourceRanges": ["10.0.0.0/8"]}, ["loadBalancerSourceRanges"]),  # a ClusterIP Service
        ({"externalIPs": ["203.0.113.7"]}, []),
        ({"externalIPs": ["203.0.113.7", "127.0.0.1", "10.0.0.01"]}, ["externalIPs[1]", "externalIPs[2]"]),
        ({"externalIPs": ["203.0.113.7"], "externalTrafficPolicy": "Local"}, []),  # externally accessible
        ({"type": _LB, "externalTrafficPolicy": "Local", "healthCheckNodePort": 30100}, []),
        ({"type": _LB, "healthCheckNodePort": 30100}, ["healthCheckNodePort"]),  # Cluster, by default
        ({"type": _LB, "externalTrafficPolicy": "Local", "healthCheckNodePort": 70000}, ["healthCheckNodePort"]),
        ({"trafficDistribution": "PreferSameNode"}, []),  # PreferSameTrafficDistribution: GA in 1.35
        ({"trafficDistribution": "PreferZone"}, ["trafficDistribution"]),
        ({"clusterIP": "None"}, []),
        ({"clusterIP": "None", "type": "NodePort"}, ["clusterIP"]),
        ({"clusterIP": "10.96.0.10"}, []),
        ({"clusterIP": "10.96.0.010"}, ["clusterIP"]),
        (
            {"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10", "fd00::a"], "ipFamilyPolicy": "RequireDualStack"},
            [],
        ),
        ({"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10", "10.96.0.11"]}, ["clusterIPs"]),  # one family twice
        ({"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.11"]}, ["clusterIPs"]),
        ({"clusterIPs": ["10.96.0.11"]}, ["clusterIPs"]),
        ({"clusterIP": "None", "clusterIPs": ["None", "10.96.0.11"]}, ["clusterIPs"]),
        ({"clusterIP": "10.96.0.10", "ipFamilies": ["IPv6"]}, ["clusterIP"]),
        (
            {"ipFamilies": ["IPv4", "ipv6", "IPv4"], "ipFamilyPolicy": "DualStack"},
            ["ipFamilies[1]", "ipFamilies[2]", "ipFamilyPolicy"],
        ),
        ({"ports": [{"name": "app", "port": 9000, "targetPort": "app-port", "appProtocol": "kubernetes.io/h2c"}]}, []),
        ({"ports": [{"name": "app", "port": 9000, "targetPort": 0}]}, []),  # 0: defaulted to the port
        ({"ports": [{"name": "app", "port": 9000, "targetPort": "9000"}]}, ["ports[0].targetPort"]),
        ({"ports": [{"name": "app", "port": 9000, "targetPort": 65536}]}, ["ports[0].targetPort"]),
        ({"ports": [{"name": "app", "port": 9000, "appProtocol": "HTTP/2"}]}, ["ports[0].appProtocol"]),
        (
            {
                "type": "NodePort",
                "ports": [
                    {"name": "a", "port": 9000, "nodePort": 30900},
                    {"name": "b", "port": 9001, "nodePort": 30900},
                ],
            },
            ["ports[1].nodePort"],
        ),
        (
            {
                "type": "NodePort",
                "ports": [
                    {"name": "a", "port": 9000, "nodePort": 30900},
                    {"name": "b", "port": 9000, "protocol": "UDP", "nodePort": 30900},
                ],
            },
            [],
        ),
        ({"clusterIPs": UNKNOWN_SENTINEL, "externalIPs": UNKNOWN_SENTINEL, "clusterIP": UNKNOWN_SENTINEL}, []),
        ({"ports": [{"name": "app", "port": 9000, "targetPort": UNKNOWN_SENTINEL}]}, []),
    ],
)
def test_custom_head_service_spec(spec: JsonDict, suffixes: list[str]) -> None:
    prefix = "spec.headGroupSpec.headService.spec."
    assert sorted(_paths(_head_service(spec), HEAD)) == sorted(prefix + s for s in suffixes)


def test_the_finding_names_the_field_the_refusal_and_the_fix() -> None:
    [(path, message)] = _found(_head_service({"type": "NodePort", "loadBalancerSourceRanges": ["10.0.0.0/8"]}), HEAD)
    assert path == "spec.headGroupSpec.headService.spec.loadBalancerSourceRanges"
    assert message == (
        "loadBalancerSourceRanges are only for a LoadBalancer Service, this one is NodePort (validateService): "
        "the API server refuses the head Service and workers never find the head"
    )
    [(path, message)] = _found(_head_service({"ports": [{"name": "app", "port": 9000, "targetPort": "9000"}]}), HEAD)
    assert message.startswith(
        "targetPort '9000' is neither a port number nor a port name: write the number without quotes"
    )


def test_an_external_name_head_service_from_service_type_alone() -> None:
    """Without a custom headService nothing can give spec.externalName (BuildServiceForHeadPod)."""
    assert _paths(example(lambda d: head_of(d).update(serviceType="ExternalName")), HEAD) == [
        "spec.headGroupSpec.serviceType"
    ]
    named = _head_service({"externalName": "ray.example.com"}, serviceType="ExternalName")  # the type defaulted
    assert _paths(named, HEAD) == []


@pytest.mark.parametrize(
    ("head_annotations", "custom_annotations", "service_type", "path"),
    [
        ({LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"}, None, _LB, None),
        ({LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8, 10.1.0.0/16"}, None, _LB, None),
        ({LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8,10.1.0.1/16"}, None, _LB, "spec.headServiceAnnotations"),
        ({LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"}, None, None, "spec.headServiceAnnotations"),
        (
            None,
            {LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: ""},
            "NodePort",
            "spec.headGroupSpec.headService.metadata.annotations",
        ),
        # headServiceAnnotations win over the custom headService's (BuildServiceForHeadPod)
        (
            {LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"},
            {LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "x"},
            _LB,
            None,
        ),
        (None, {TOPOLOGY_MODE_ANNOTATION: "Auto", TOPOLOGY_AWARE_HINTS_ANNOTATION: "Auto"}, None, None),
        (
            {TOPOLOGY_MODE_ANNOTATION: "Auto"},
            {TOPOLOGY_AWARE_HINTS_ANNOTATION: "auto"},
            None,
            "spec.headServiceAnnotations",
        ),
    ],
)
def test_head_service_annotations(
    head_annotations: JsonDict | None, custom_annotations: JsonDict | None, service_type: str | None, path: str | None
) -> None:
    def edit(doc: JsonDict) -> None:
        if head_annotations is not None:
            doc["spec"]["headServiceAnnotations"] = head_annotations
        if custom_annotations is not None:
            head_of(doc)["headService"] = {"metadata": {"annotations": custom_annotations}}
        if service_type is not None:
            head_of(doc)["serviceType"] = service_type

    found = _paths(example(edit), HEAD)
    assert [p.split("[")[0] for p in found] == ([] if path is None else [path])


def test_a_rayjob_cluster_head_service_is_judged_at_its_embedded_path() -> None:
    job = example_job()
    job["spec"]["rayClusterSpec"]["headGroupSpec"]["headService"] = {"spec": {"externalIPs": ["169.254.1.1"]}}
    [(path, message)] = _found(job, HEAD)
    assert path == "spec.rayClusterSpec.headGroupSpec.headService.spec.externalIPs[0]"
    assert "may not be in the link-local range" in message and "reported as 'The RayJob spec is invalid'" in message


# --------------------------------------------------------------------------------------------------
# The Serve Service (BuildServeService)

_SERVE_ONLY = [{"name": "serve", "containerPort": 8000}, {"name": "serve-grpc", "containerPort": 9000}]
_NO_SERVE = [{"name": "dashboard", "containerPort": 8265}]


def _serve(serve: JsonDict, head_ports: list[JsonDict] | None = None, **spec: Any) -> JsonDict:
    doc = example_service(serveService=serve, **spec)
    if head_ports is not None:
        doc["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"] = head_ports
    return doc


@pytest.mark.parametrize(
    ("serve", "head_ports", "suffixes"),
    [
        ({"spec": {"type": _LB}}, None, []),
        ({"spec": {"type": "Loadbalancer"}}, None, ["spec.type"]),
        ({"spec": {"sessionAffinity": "clientip"}}, None, ["spec.sessionAffinity"]),
        ({"spec": {"externalTrafficPolicy": "Local"}}, None, ["spec.externalTrafficPolicy"]),  # ClusterIP
        (
            {"spec": {"type": _LB, "loadBalancerSourceRanges": ["10.0.0.1/8"]}},
            None,
            ["spec.loadBalancerSourceRanges[0]"],
        ),
        ({"spec": {"trafficDistribution": "PreferSameZone"}}, None, []),
        # the user's port of a serving name replaces the head's (its appProtocol kept), the others are dropped
        ({"spec": {"ports": [{"name": "serve", "port": 8000, "appProtocol": "kubernetes.io/h2c"}]}}, None, []),
        (
            {"spec": {"ports": [{"name": "serve", "port": 8000, "targetPort": "8000"}]}},
            None,
            ["spec.ports[0].targetPort"],
        ),
        ({"spec": {"ports": [{"name": "web", "port": 80, "targetPort": "80", "protocol": "tcp"}]}}, None, []),
        ({"spec": {"ports": [{"name": "serve-grpc", "port": 8000}]}}, _SERVE_ONLY, ["spec.ports[0].port"]),
        ({"spec": {"ports": [{"name": "serve-grpc", "port": 9100}]}}, _SERVE_ONLY, []),
        ({"spec": {"ports": [{"name": "serve", "port": 8000, "nodePort": 30080}]}}, None, ["spec.ports[0].nodePort"]),
        ({"spec": {"type": "NodePort", "ports": [{"name": "serve", "port": 8000, "nodePort": 30080}]}}, None, []),
        (
            {
                "spec": {
                    "type": "NodePort",
                    "ports": [
                        {"name": "serve", "port": 8000, "nodePort": 30080},
                        {"name": "serve-grpc", "port": 9000, "nodePort": 30080},
                    ],
                }
            },
            _SERVE_ONLY,
            ["spec.ports[1].nodePort"],
        ),
        (
            {
                "spec": {
                    "type": "NodePort",
                    "ports": [
                        {"name": "web", "port": 80, "nodePort": 30080},
                        {"name": "other", "port": 81, "nodePort": 30080},
                    ],
                }
            },
            None,
            [],
        ),  # dropped
        # no serving port on the head: serveService's ports as they are, and none at all is refused
        ({"spec": {"ports": [{"name": "web", "port": 80}, {"port": 81}]}}, _NO_SERVE, ["spec.ports[1]"]),
        (
            {"spec": {"ports": [{"name": "web", "port": 80}, {"name": "web", "port": 81}]}},
            _NO_SERVE,
            ["spec.ports[1].name"],
        ),
        ({"spec": {"ports": [{"name": "Web", "port": 80}]}}, _NO_SERVE, ["spec.ports[0].name"]),
        ({"spec": {}}, _NO_SERVE, ["spec.ports"]),
        ({"spec": {"clusterIP": "None"}}, _NO_SERVE, []),  # a headless Service needs no port
        ({"spec": {"type": "ExternalName", "externalName": "serve.example.com"}}, _NO_SERVE, []),
        ({"metadata": {"name": "fruit-serve"}}, None, []),
        ({"metadata": {"name": "Fruit_Serve"}}, None, ["metadata.name"]),
        (
            {"metadata": {"labels": {"team": "a b"}, "annotations": {"bad key!": "x"}}},
            None,
            ['metadata.annotations["bad key!"]', 'metadata.labels["team"]'],
        ),
        ({"metadata": {"labels": {"ray.io/serve": "set by KubeRay!"}}}, None, []),  # KubeRay's label replaces it
        (
            {"metadata": {"annotations": {LOAD_BALANCER_SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"}}},
            None,
            [f'metadata.annotations["{LOAD_BALANCER_SOURCE_RANGES_ANNOTATION}"]'],
        ),
        ({"spec": {"ports": UNKNOWN_SENTINEL, "externalIPs": UNKNOWN_SENTINEL}}, _NO_SERVE, []),
    ],
)
def test_serve_service(serve: JsonDict, head_ports: list[JsonDict] | None, suffixes: list[str]) -> None:
    assert sorted(_paths(_serve(serve, head_ports), SERVE)) == sorted(f"spec.serveService.{s}" for s in suffixes)


def test_the_serve_service_finding_says_what_is_refused() -> None:
    [(path, message)] = _found(_serve({"spec": {}}, _NO_SERVE), SERVE)
    assert path == "spec.serveService.spec.ports"
    assert message == (
        "the Serve Service gets no ports: neither the head container nor serveService.spec.ports has a port named "
        "'serve' (or 'serve-<protocol>') (validateService: ports Required): the API server refuses the Serve "
        "Service KubeRay builds from spec.serveService (BuildServeService) on every reconcile, so Serve traffic "
        "has no Service"
    )


def test_an_incremental_upgrade_builds_the_serve_service_without_serve_service() -> None:
    doc = _serve({"spec": {"type": "Loadbalancer"}}, upgradeStrategy={"type": "NewClusterWithIncrementalUpgrade"})
    assert _paths(doc, SERVE) == []
    gate_off = Target.of(feature_gates={"RayServiceIncrementalUpgrade": False})
    assert _paths(doc, SERVE, gate_off) == ["spec.serveService.spec.type"]


def test_before_kuberay_1_6_only_the_serve_port_reaches_the_serve_service() -> None:
    """BuildServeService before 1.6: the head's 'serve' port, else serveService's first port named 'serve' (its
    name and number only), never 'serve-<protocol>'."""
    old = Target.of(kuberay_version="1.5.0")
    bad_target = {"spec": {"ports": [{"name": "serve", "port": 8000, "targetPort": "8000"}]}}
    assert _paths(_serve(bad_target), SERVE, old) == []
    assert _paths(_serve(bad_target, _NO_SERVE), SERVE, old) == []
    grpc_only = {"spec": {"ports": [{"name": "serve-grpc", "port": 9000}]}}
    assert _paths(_serve(grpc_only, _NO_SERVE), SERVE, old) == ["spec.serveService.spec.ports"]
    assert _paths(_serve(grpc_only, _NO_SERVE), SERVE) == []
    assert _paths(_serve({"spec": {"type": "Loadbalancer"}}), SERVE, old) == ["spec.serveService.spec.type"]


def test_only_a_rayservice_has_a_serve_service() -> None:
    doc = example(lambda d: d["spec"].update(serveService={"spec": {"type": "Loadbalancer"}}))
    assert _paths(doc, SERVE) == []
