"""Helm values as Helm reads them: the template's ``default`` literals are Go ints, several values files and
``--set`` / ``--set-string`` / ``--set-json`` layered in Helm's order of precedence, Helm's own labels replaced.
Each case is held against the real ``helm template`` of the v1.7.0 ray-cluster chart when helm is available."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from _convert_helm import chart_dir, helm_binary, require_helm
from pulumi_kuberay.cli.convert import main as convert_main
from pulumi_kuberay.convert.helm import GoInt, merge_values, render_values, replace_helm_labels

NAMESPACE = "ml"


def _helm(files: list[dict[str, Any]], *flags: str) -> dict[str, Any]:
    """``helm template`` with the values files in order and the flags as given."""
    helm = require_helm()
    names: list[str] = []
    try:
        for values in files:
            with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
                yaml.safe_dump(values, handle)
                names.append(handle.name)
        args = [helm, "template", "raycluster", str(chart_dir()), "--namespace", NAMESPACE]
        for name in names:
            args += ["-f", name]
        done = subprocess.run([*args, *flags], capture_output=True, text=True, check=False, timeout=120)
    finally:
        for name in names:
            os.unlink(name)
    assert done.returncode == 0, done.stderr
    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    return docs[0]  # type: ignore[no-any-return]


def _template_defaults() -> list[tuple[str, str]]:
    """(values field, literal) for every ``| default <number>`` in the chart's RayCluster template."""
    text = (chart_dir() / "templates" / "raycluster-cluster.yaml").read_text()
    return re.findall(r"\.(\w+) \| default (\d+) \}\}", text)


def test_every_numeric_default_of_the_template_renders_as_the_go_int_helm_prints() -> None:
    """Pattern: an extra worker group without minReplicas / maxReplicas / numOfHosts (very common in values
    files): the chart's ``default 2147483647`` is a Go int, printed as digits, never ``2.147483647e+09``."""
    defaults = _template_defaults()
    assert sorted(set(defaults)) == [("maxReplicas", "2147483647"), ("minReplicas", "0"), ("numOfHosts", "1")]
    values = {"additionalWorkerGroups": {"gpu": {"replicas": 1}}, "worker": {"minReplicas": None,
              "maxReplicas": None, "numOfHosts": None}}  # fmt: skip
    ours = render_values(values, release_name="raycluster", namespace=NAMESPACE)
    for group in ours["spec"]["workerGroupSpecs"]:
        for field, literal in defaults:
            assert group[field] == int(literal) and type(group[field]) is int, (group["groupName"], field)
    if helm_binary() is not None:
        assert ours == _helm([values])


def test_every_default_of_the_chart_templates_is_one_we_render() -> None:
    """Every ``default`` in the chart's templates: the numeric ones above, ``default list`` (an extra group's
    containerEnv), ``default .Chart.Name`` (the name helpers) and the service-account helper no template uses."""
    found: set[str] = set()
    for template in sorted((chart_dir() / "templates").iterdir()):
        for line in template.read_text().splitlines():
            if " default " in line and "{{" in line:
                found.add(line.split(" default ", 1)[1].split("}}")[0].split("|")[0].strip(" -)"))
    numeric = {"0", "1", "2147483647"}
    helpers = {"list", ".Chart.Name .Values.nameOverride", '"default" .Values.serviceAccount.name',
               '(include "ray-cluster.fullname" .) .Values.serviceAccount.name'}  # fmt: skip
    assert found == numeric | helpers, found


def test_values_file_numbers_are_float64_and_set_numbers_are_int64() -> None:
    """Pattern: ``maxReplicas: 1000000`` in a values file prints as ``1e+06`` (float64) while
    ``--set worker.maxReplicas=1000000`` prints digits (strvals parses an int64)."""
    from_file = render_values(merge_values([{"worker": {"maxReplicas": 1000000}}]))
    from_set = render_values(merge_values([], set_values=["worker.maxReplicas=1000000"]))
    assert from_file["spec"]["workerGroupSpecs"][0]["maxReplicas"] == "1e+06"
    assert from_set["spec"]["workerGroupSpecs"][0]["maxReplicas"] == 1000000
    assert isinstance(merge_values([], set_values=["a=7"])["a"], GoInt)
    if helm_binary() is not None:
        assert from_set == _helm([], "--namespace", NAMESPACE, "--set", "worker.maxReplicas=1000000") | {
            "metadata": from_set["metadata"]
        }


LAYERS: list[dict[str, Any]] = [
    {"image": {"tag": "2.9.0"}, "worker": {"replicas": 1, "labels": {"team": "a"}}, "head": {"rayVersion": "2.9.0"}},
    {"image": {"tag": "2.10.0"}, "worker": {"replicas": 3}, "additionalWorkerGroups": {"gpu": {"replicas": 1}}},
]
FLAGS = {
    "set_json": ['worker.nodeSelector={"pool":"cpu"}', "head.rayStartParams={\"num-cpus\":\"0\"}"],
    "set_values": ["image.tag=2.52.0,worker.replicas=5", "additionalWorkerGroups.gpu.maxReplicas=4",
                   "worker.tolerations[0].key=gpu,worker.tolerations[0].operator=Exists"],
    "set_string": ["head.rayVersion=2.52.0", "worker.labels.build=0123"],
}  # fmt: skip


def test_several_files_and_set_flags_layer_in_helms_order() -> None:
    """Pattern: a base values file plus an environment file plus ``--set image.tag=...`` in CI: later files win,
    then --set-json, --set, --set-string (Helm applies them in that order whatever the command line order)."""
    values = merge_values(LAYERS, **FLAGS)
    assert values["image"]["tag"] == "2.52.0" and values["worker"]["replicas"] == 5
    assert values["worker"]["labels"] == {"team": "a", "build": "0123"} and values["head"]["rayVersion"] == "2.52.0"
    ours = render_values(values, release_name="raycluster", namespace=NAMESPACE)
    assert ours["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] == "rayproject/ray:2.52.0"
    if helm_binary() is not None:
        flags: list[str] = []
        for option, items in (("--set-string", FLAGS["set_string"]), ("--set", FLAGS["set_values"]),
                              ("--set-json", FLAGS["set_json"])):  # fmt: skip
            for item in items:  # given in the reverse order on purpose: Helm's precedence does not depend on it
                flags += [option, item]
        assert ours == _helm(LAYERS, *flags)


def test_convert_cli_layers_files_and_set_and_replaces_helms_labels(tmp_path: Path) -> None:
    """Pattern: the chart's ``helm.sh/chart`` / ``app.kubernetes.io/managed-by: Helm`` labels are false once
    Pulumi manages the object: dropped / replaced, each change said in a comment."""
    files = []
    for i, values in enumerate(LAYERS):
        path = tmp_path / f"values-{i}.yaml"
        path.write_text(yaml.safe_dump(values))
        files.append(str(path))
    out = tmp_path / "infra.py"
    args = ["--from", "helm-values", *files, "--set", "image.tag=2.52.0", "--set-string", "head.rayVersion=2.52.0",
            "--namespace", NAMESPACE, "-o", str(out)]  # fmt: skip
    assert convert_main(args) == 0
    text = out.read_text()
    assert "helm.sh/chart" in text and "label helm.sh/chart=ray-cluster-1.7.0 dropped" in text
    assert '"app.kubernetes.io/managed-by": "pulumi"' in text and "managed-by=Helm became pulumi" in text
    assert "rayproject/ray:2.52.0" in text and "--set image.tag=2.52.0" in text


def test_replace_helm_labels_touches_the_object_and_every_pod_template() -> None:
    manifest = render_values({"additionalWorkerGroups": {"gpu": {"replicas": 1}}})
    notes = replace_helm_labels(manifest)
    assert len(notes) == 2 * 4  # object, head, worker, gpu: chart label dropped and managed-by replaced
    labels = [manifest["metadata"]["labels"]] + [
        g["template"]["metadata"]["labels"]
        for g in [manifest["spec"]["headGroupSpec"], *manifest["spec"]["workerGroupSpecs"]]
    ]
    assert all("helm.sh/chart" not in x and x["app.kubernetes.io/managed-by"] == "pulumi" for x in labels)
    assert all(x["app.kubernetes.io/instance"] == "raycluster" for x in labels)


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("a.b=1", {"a": {"b": 1}}),
        ("a=true,b=null,c=01,d=1.5", {"a": True, "b": None, "c": "01", "d": "1.5"}),
        ("a[1]=x", {"a": [None, "x"]}),
        ("a={x,y}", {"a": ["x", "y"]}),
        (r"a\.b=c\,d", {"a.b": "c,d"}),
    ],
)
def test_set_is_parsed_like_helms_strvals(item: str, expected: dict[str, Any]) -> None:
    assert merge_values([], set_values=[item]) == expected
