"""pod-volume-source-invalid on the in-tree volume plugins, the downward API's fields, a projected volume's sources
and the rest of an ephemeral volume's claim template (rules/_volume_plugins.py): the path of each finding, its
message, and the values Pod validation accepts (no finding)."""

from __future__ import annotations

from typing import Any

import pytest
from pulumi_kuberay import rules
from pulumi_kuberay.kuberay.paths import UNKNOWN_SENTINEL
from pulumi_kuberay.rules._examples import example, worker_of

JsonDict = dict[str, Any]
RULE = "pod-volume-source-invalid"
VOLUME = "spec.workerGroupSpecs[0].template.spec.volumes[0]"
_CLAIM = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
_ISCSI = {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0}


def _found(volume: JsonDict, name: str = "v") -> list[tuple[str, str]]:
    doc = example(lambda d: worker_of(d)["template"]["spec"].update(volumes=[{"name": name, **volume}]))
    return [(f.path.removeprefix(f"{VOLUME}."), f.message) for f in rules.check(doc) if f.rule_id == RULE]


def _claim(**fields: Any) -> JsonDict:
    return {"ephemeral": {"volumeClaimTemplate": {"spec": {**_CLAIM, **fields}}}}


@pytest.mark.parametrize(
    ("volume", "suffix", "words"),
    [
        ({"iscsi": _ISCSI}, None, ""),
        ({"iscsi": {**_ISCSI, "iqn": "eui.02004567A425678D"}}, None, ""),
        ({"iscsi": {**_ISCSI, "iqn": "target"}}, "iscsi.iqn", "'target' must start with iqn, eui or naa"),
        ({"iscsi": {**_ISCSI, "iqn": "iqn.2001-04.com.example"}}, "iscsi.iqn", "is not a valid iqn name"),
        ({"iscsi": {**_ISCSI, "lun": 256}}, "iscsi.lun", "iscsi lun 256 is not in 0..255 (validateISCSIVolumeSource)"),
        ({"iscsi": {**_ISCSI, "targetPortal": ""}}, "iscsi.targetPortal", "iscsi volume has no targetPortal"),
        ({"iscsi": {**_ISCSI, "chapAuthSession": True}}, "iscsi.secretRef", "CHAP authentication needs a secretRef"),
        ({"iscsi": {**_ISCSI, "initiatorName": "naa.1"}}, "iscsi.initiatorName", "is not a valid naa name"),
        ({"iscsi": {**_ISCSI, "initiatorName": "iqn.2001-04.com.example:node", "targetPortal": "p" * 63}}, "name", "at most 64"),
        ({"iscsi": {**_ISCSI, "iqn": UNKNOWN_SENTINEL, "lun": UNKNOWN_SENTINEL}}, None, ""),
        ({"fc": {"wwids": ["3600508b400105e210000900000490000"], "lun": 300}}, None, ""),  # lun judged with targetWWNs only
        ({"fc": {"targetWWNs": ["500a0982991b8dc5"], "lun": 300}}, "fc.lun", "fc lun 300 is not in 0..255"),
        ({"fc": {"targetWWNs": ["500a0982991b8dc5"], "wwids": ["x"], "lun": 1}}, "fc.targetWWNs", "not both"),
        ({"fc": {}}, "fc.targetWWNs", "needs targetWWNs (with a lun) or wwids"),
        ({"gcePersistentDisk": {"pdName": "disk", "partition": 1}}, None, ""),
        ({"gcePersistentDisk": {"pdName": "disk", "partition": 256}}, "gcePersistentDisk.partition", "not in 0..255"),
        ({"awsElasticBlockStore": {"volumeID": ""}}, "awsElasticBlockStore.volumeID", "awsElasticBlockStore volume has no volumeID (validateAWSElasticBlockStoreVolumeSource)"),
        ({"quobyte": {"registry": "a:7861,[::1]:7861", "volume": "v"}}, None, ""),
        ({"quobyte": {"registry": "::1:7861", "volume": "v"}}, "quobyte.registry", "host:port pairs"),
        ({"quobyte": {"registry": "a:7861", "volume": "v", "tenant": "t" * 65}}, "quobyte.tenant", "at most 64"),
        ({"glusterfs": {"endpoints": "", "path": "vol"}}, "glusterfs.endpoints", "glusterfs volume has no endpoints"),
        ({"flocker": {"datasetUUID": "u"}}, None, ""),
        ({"flocker": {}}, "flocker", "needs one of datasetName and datasetUUID"),
        ({"flocker": {"datasetName": "a", "datasetUUID": "u"}}, "flocker", "not both"),
        ({"rbd": {"monitors": ["10.0.0.1:6789"], "image": ""}}, "rbd.image", "rbd volume has no image (validateRBDVolumeSource)"),
        ({"cinder": {"volumeID": "v", "secretRef": {"name": "c"}}}, None, ""),
        ({"cinder": {"volumeID": "v", "secretRef": {}}}, "cinder.secretRef.name", "cinder secretRef has no name"),
        ({"cephfs": {"monitors": []}}, "cephfs.monitors", "cephfs volume has no monitors (validateCephFSVolumeSource)"),
        ({"flexVolume": {"driver": "example/lvm", "options": {"example.com/size": "1"}}}, None, ""),
        ({"flexVolume": {"driver": "example/lvm", "options": {"node.k8s.io/x": "1"}}}, "flexVolume.options", "reserved"),
        ({"azureFile": {"secretName": "", "shareName": "s"}}, "azureFile.secretName", "azureFile volume has no secretName"),
        ({"azureDisk": {"diskName": "d", "diskURI": "https://a.blob.core.windows.net/c/d.vhd"}}, None, ""),
        ({"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/d", "kind": "Managed"}}, None, ""),
        ({"azureDisk": {"diskName": "d", "diskURI": "https://a/d.vhd", "kind": "Managed"}}, "azureDisk.diskURI", "a managed disk's URI starts with '/subscriptions/'"),
        ({"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/d"}}, "azureDisk.diskURI", "kind Shared (the default)"),
        (
            {"azureDisk": {"diskName": "d", "diskURI": "https://a/d.vhd", "cachingMode": "readonly"}},
            "azureDisk.cachingMode",
            "not one of None, ReadOnly, ReadWrite",
        ),
        ({"vsphereVolume": {"volumePath": ""}}, "vsphereVolume.volumePath", "has no volumePath"),
        ({"photonPersistentDisk": {"pdID": ""}}, "photonPersistentDisk.pdID", "has no pdID"),
        ({"portworxVolume": {"volumeID": ""}}, "portworxVolume.volumeID", "has no volumeID"),
        (
            {"scaleIO": {"gateway": "", "system": "s", "volumeName": "v", "secretRef": {"name": "s"}}},
            "scaleIO.gateway",
            "has no gateway",
        ),
        ({"storageos": {"volumeName": "vol-1", "volumeNamespace": "ns"}}, None, ""),
        ({"storageos": {"volumeName": "vol-1", "volumeNamespace": "My_NS"}}, "storageos.volumeNamespace", "not a DNS-1123 label"),
        (
            {"csi": {"driver": "csi.example.com", "nodePublishSecretRef": {"name": "Bad_Name"}}},
            "csi.nodePublishSecretRef.name",
            "is not a Secret name",
        ),
        ({"image": {"reference": "registry.example.com/models:v1"}}, None, ""),
        ({"image": {"reference": "registry.example.com/models:v1", "pullPolicy": "always"}}, "image.pullPolicy", "'always' is not one of Always, IfNotPresent, Never"),
        ({"image": {"reference": ""}}, "image.reference", "image volume has no reference (validateImageVolumeSource)"),
    ],
)  # fmt: skip
def test_in_tree_plugins(volume: JsonDict, suffix: str | None, words: str) -> None:
    found = _found(volume)
    if suffix is None:
        assert found == []
    else:
        assert [path for path, _ in found] == [suffix], found
        assert words in found[0][1] and "the API server refuses every Pod" in found[0][1]


@pytest.mark.parametrize(
    ("volume", "suffixes", "words"),
    [
        ({"downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}, [], ""),
        ({"downwardAPI": {"items": [{"path": "team", "fieldRef": {"fieldPath": "metadata.labels['team']"}}]}}, [], ""),
        (
            {"downwardAPI": {"items": [{"path": "node", "fieldRef": {"fieldPath": "spec.nodeName"}}]}},
            ["downwardAPI.items[0].fieldRef.fieldPath"],
            "not one the downward API serves to a volume",
        ),
        (
            {"downwardAPI": {"items": [{"path": "x", "fieldRef": {"fieldPath": "metadata.name['x']"}}]}},
            ["downwardAPI.items[0].fieldRef.fieldPath"],
            "a subscript follows only",
        ),
        (
            {"downwardAPI": {"items": [{"path": "x", "fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}}]}},
            ["downwardAPI.items[0].fieldRef.fieldPath"],
            "is not v1",
        ),
        (
            {"downwardAPI": {"items": [{"path": "cpu", "resourceFieldRef": {"containerName": "ray-worker", "resource": "limits.cpu"}}]}},
            [],
            "",
        ),
        (
            {"downwardAPI": {"items": [{"path": "cpu", "resourceFieldRef": {"resource": "limits.cpu"}}]}},
            ["downwardAPI.items[0].resourceFieldRef.containerName"],
            "needs a containerName",
        ),
        (
            {"downwardAPI": {"items": [{"path": "g", "resourceFieldRef": {"containerName": "c", "resource": "limits.gpu"}}]}},
            ["downwardAPI.items[0].resourceFieldRef.resource"],
            "'limits.gpu' is not one of",
        ),
        (
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "m",
                            "resourceFieldRef": {
                                "containerName": "c",
                                "resource": "limits.memory",
                                "divisor": "1Mi",
                            },
                        }
                    ]
                }
            },
            [],
            "",
        ),
        (
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "c",
                            "resourceFieldRef": {
                                "containerName": "c",
                                "resource": "requests.cpu",
                                "divisor": "1000m",
                            },
                        }
                    ]
                }
            },
            [],
            "",
        ),  # written back as 1
        (
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "c",
                            "resourceFieldRef": {"containerName": "c", "resource": "limits.cpu", "divisor": "2"},
                        }
                    ]
                }
            },
            ["downwardAPI.items[0].resourceFieldRef.divisor"],
            "divisor '2' of limits.cpu is not one of 1m, 1",
        ),
        (
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "m",
                            "resourceFieldRef": {
                                "containerName": "c",
                                "resource": "limits.memory",
                                "divisor": "1024",
                            },
                        }
                    ]
                }
            },
            ["downwardAPI.items[0].resourceFieldRef.divisor"],
            "is not one of 1, 1k",
        ),
        (
            {
                "projected": {
                    "sources": [
                        {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                        {"configMap": {"name": "c"}},
                    ]
                }
            },
            [],
            "",
        ),
        ({"projected": {"sources": [{"secret": {"name": "s"}, "configMap": {"name": "c"}}]}}, ["projected.sources[0]"], "this one 2"),
        ({"projected": {"sources": [{"secret": {}}]}}, ["projected.sources[0].secret.name"], "a projected secret has no name"),
        (
            {
                "projected": {
                    "sources": [
                        {"secret": {"name": "s", "items": [{"key": "a", "path": "p"}]}},
                        {"configMap": {"name": "c", "items": [{"key": "b", "path": "p"}]}},
                    ]
                }
            },
            ["projected.sources[1].configMap.items[0].path"],
            "projected twice",
        ),
        (
            {"projected": {"sources": [{"configMap": {"name": "c", "items": [{"key": "b", "path": "/etc/p"}]}}]}},
            ["projected.sources[0].configMap.items[0].path"],
            "must be a relative path",
        ),
        (
            {"projected": {"sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 599}}]}},
            ["projected.sources[0].serviceAccountToken.expirationSeconds"],
            "599 is not between 10 minutes",
        ),
        ({"projected": {"sources": [{"serviceAccountToken": {"path": "../t"}}]}}, ["projected.sources[0].serviceAccountToken.path"], "relative, without '..'"),
        (
            {"projected": {"sources": [{"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "status.podIP"}}]}}]}},
            ["projected.sources[0].downwardAPI.items[0].fieldRef.fieldPath"],
            "not one the downward API serves",
        ),
        ({"projected": {"sources": [{"clusterTrustBundle": {"name": "Bad:Name", "path": "ca.pem"}}]}}, [], ""),  # dropped: gate off
    ],
)  # fmt: skip
def test_downward_api_and_projected_sources(volume: JsonDict, suffixes: list[str], words: str) -> None:
    found = _found(volume)
    assert [path for path, _ in found] == suffixes, found
    assert all(words in message for _, message in found)


@pytest.mark.parametrize(
    ("volume", "suffix", "words"),
    [
        (_claim(storageClassName="fast-ssd", volumeAttributesClassName="gold"), None, ""),
        (_claim(accessModes=["ReadWriteOncePod"]), None, ""),
        (_claim(accessModes=["ReadWriteOncePod", "ReadOnlyMany"]), "accessModes", "ReadWriteOncePod may not be used with other access modes"),
        (_claim(storageClassName="Fast_SSD"), "storageClassName", "'Fast_SSD' is not an object name"),
        (_claim(volumeAttributesClassName="gold."), "volumeAttributesClassName", "is not an object name"),
        (_claim(selector={"matchLabels": {"tier": "fast"}, "matchExpressions": [{"key": "zone", "operator": "Exists"}]}), None, ""),
        (
            _claim(selector={"matchExpressions": [{"key": "zone", "operator": "Exists", "values": ["a"]}]}),
            "selector.matchExpressions[0].values",
            "Exists takes no values",
        ),
        (
            _claim(selector={"matchExpressions": [{"key": "zone", "operator": "in", "values": ["a"]}]}),
            "selector.matchExpressions[0].operator",
            "'in' is not In, NotIn",
        ),
        (_claim(selector={"matchLabels": {"tier": "fast ssd"}}), "selector.matchLabels", "tier='fast ssd'"),
        (_claim(dataSource={"name": "src", "kind": "PersistentVolumeClaim"}), None, ""),
        (_claim(dataSource={"name": "snap", "kind": "VolumeSnapshot", "apiGroup": "snapshot.storage.k8s.io"}), None, ""),
        (_claim(dataSource={"name": "snap", "kind": "VolumeSnapshot"}), "dataSource", "of kind 'VolumeSnapshot' needs its apiGroup"),
        (_claim(dataSource={"name": "", "kind": "PersistentVolumeClaim"}), "dataSource.name", "dataSource has no name (validateDataSource)"),
        (_claim(dataSource={"kind": "PersistentVolumeClaim"}), None, ""),  # absent: the CRD requires it (schema-missing-field)
        (
            _claim(dataSourceRef={"name": "p", "kind": "Populator", "apiGroup": "Pop.Example"}),
            "dataSourceRef.apiGroup",
            "not a DNS-1123 subdomain (validateDataSourceRef)",
        ),
        (
            _claim(dataSourceRef={"name": "p", "kind": "PersistentVolumeClaim", "namespace": "Other_NS"}),
            "dataSourceRef.namespace",
            "not a namespace name",
        ),
        (
            _claim(dataSource={"name": "a", "kind": "PersistentVolumeClaim"}, dataSourceRef={"name": "a", "kind": "PersistentVolumeClaim"}),
            None,
            "",
        ),
        (
            _claim(dataSource={"name": "a", "kind": "PersistentVolumeClaim"}, dataSourceRef={"name": "b", "kind": "PersistentVolumeClaim"}),
            "dataSource",
            "must match dataSourceRef",
        ),
        (
            _claim(
                dataSource={"name": "a", "kind": "PersistentVolumeClaim"},
                dataSourceRef={"name": "a", "kind": "PersistentVolumeClaim", "namespace": "other"},
            ),
            "dataSource",
            "may not be set with a dataSourceRef that names a namespace",
        ),
        (_claim(storageClassName=UNKNOWN_SENTINEL, dataSource={"name": UNKNOWN_SENTINEL, "kind": "PersistentVolumeClaim"}), None, ""),
    ],
)  # fmt: skip
def test_claim_template_spec(volume: JsonDict, suffix: str | None, words: str) -> None:
    found = _found(volume)
    spec = "ephemeral.volumeClaimTemplate.spec"
    assert [path for path, _ in found] == ([] if suffix is None else [f"{spec}.{suffix}"]), found
    assert all(words in message for _, message in found)


def test_a_field_the_crd_requires_absent_is_the_schema_rules() -> None:
    """Absent, a field the CRD requires (rbd.monitors) refuses the Ray object itself: schema-missing-field says so;
    empty, only the Pods are refused (this rule); a field the CRD leaves optional (image.reference) is this rule's."""
    doc = example(lambda d: worker_of(d)["template"]["spec"].update(volumes=[{"name": "v", "rbd": {"image": "x"}}]))
    found = [(f.rule_id, f.path) for f in rules.check(doc) if f.path.startswith(VOLUME)]
    assert found == [("schema-missing-field", f"{VOLUME}.rbd.monitors")]
    assert [path for path, _ in _found({"rbd": {"image": "x", "monitors": []}})] == ["rbd.monitors"]
    assert [path for path, _ in _found({"image": {}})] == ["image.reference"]
