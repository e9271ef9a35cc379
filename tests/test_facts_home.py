"""One fact, one home: every KubeRay and Kubernetes fact of ``kuberay/`` is spelled there and imported elsewhere.

The facts are read from the fact modules themselves (every public constant of :data:`FACT_MODULES`: a string, the
strings of a tuple, the keys and values of a mapping), so a fact added there is held at once. A string constant
anywhere else in ``components/pulumi_kuberay`` that equals one fails (rule examples included: they import the
names too); an API path also fails as the start of a longer path (``"/apis/ray.io/v1/namespaces/"``). Not held:
docstrings, and the values of ``Literal[...]`` types (a type cannot name a constant).
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "components" / "pulumi_kuberay"

#: The homes of the facts: the leaf modules of ``kuberay/`` that hold constants (the readers and parsers beside
#: them, ``paths``, ``quantity``, ``gosyntax``, ``replicas``, hold logic).
FACT_MODULES = ("api", "names", "kubernetes", "resources", "volumes")

#: Constants whose strings are the code's vocabulary rather than facts one could re-type wrongly.
NOT_HELD: Mapping[str, str] = {
    "api.KINDS": "a kind is how code and users name an object (Literal types, kind dispatch, messages)",
    "api.DEFAULT_FEATURE_GATES": "a gate is named where it is asked (ctx.gate('RayCronJob'), the operator's args)",
    "kubernetes.POD_SECURITY_PROFILES": "profile names are the values of the options' Literal type and CLI choices",
    "kubernetes.BYTE_DIVISORS": "'1', '1Gi', '1M' are ordinary quantities (requests, limits, sizes) wherever else they appear",
    "kubernetes.CONTAINER_RESTART_RULE_OPERATORS": "'In' and 'NotIn' are the label and node selectors' operators too",
    "kubernetes.POD_LEVEL_RESOURCES": "cpu and memory are the resource names every resource rule reads",
    "kubernetes.STANDARD_CONTAINER_RESOURCES": "cpu, memory and ephemeral-storage are the resource names every resource rule reads",
    "kubernetes.PROC_MOUNT_TYPES": "'Default' is an ordinary word (dnsPolicy Default, messages)",
    "kubernetes.RECURSIVE_READ_ONLY": "'Enabled' and 'Disabled' are ordinary words",
    "kubernetes.WINDOWS_FORBIDDEN_CONTAINER_CONTEXT": "security context field names are the CRDs' field names, read as keys",
    "kubernetes.WINDOWS_FORBIDDEN_POD_CONTEXT": "security context field names are the CRDs' field names, read as keys",
    "kubernetes.VOLUME_SOURCES": "volume source names (secret, image, hostPath) are the CRDs' field names, read as keys",
    "names.HEAD_DEFAULT_PORTS": "port names (serve, dashboard, client) are Ray's ordinary words",
    "names.METRICS_PORT_NAME": "'metrics' is an ordinary port name (the operator's own Deployment, Prometheus), not only KubeRay's",
    "volumes.AZURE_DISK_CACHING_MODES": "'None' is also Python's and YAML's word for nothing",
    "volumes.DOWNWARD_API_VOLUME_FIELD_PATHS": "object field paths (metadata.name) are how code and messages name fields",
    "volumes.DOWNWARD_API_SUBSCRIPTED_PATHS": "object field paths (metadata.labels) are how code and messages name fields",
    "volumes.DOWNWARD_API_VERSIONS": "'v1' is the version of every core object, not only the downward API's",
    "volumes.ISCSI_NAME_PATTERNS": "'iqn' is also the iscsi volume's field name, read as a key",
    "volumes.FLEX_RESERVED_OPTION_DOMAINS": "Kubernetes' own domains also reserve labels, annotations and resources",
    "resources.CUSTOM_ACCELERATORS": "its keys are held on their own (GOOGLE_TPU...); its values are Ray's resource names",
}

#: Modules allowed to spell facts, and why (keep this short).
#: Modules allowed to spell a fact of kuberay/ (none: every copy imports its home).
ALLOWED: Mapping[str, str] = {}


def _strings(value: object) -> Iterator[str]:
    """The names in a constant: a string; the strings of a tuple; the keys and values of a mapping of names (a
    mapping to mappings, such as a container's default ``resources``, holds amounts, not names)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, Mapping) and all(isinstance(item, str | int) for item in value.values()):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)


def facts() -> dict[str, str]:
    """Each fact's text -> where it lives (``names.KUEUE_QUEUE_LABEL``). A string constant of its own is always a
    fact; the strings inside the :data:`NOT_HELD` constants are not, wherever else they appear in a collection."""
    constants: dict[str, str] = {}
    collected: dict[str, str] = {}
    exempt: set[str] = set()
    for module_name in FACT_MODULES:
        module = importlib.import_module(f"pulumi_kuberay.kuberay.{module_name}")
        for name in module.__all__:
            home, value = f"{module_name}.{name}", getattr(module, name)
            if home in NOT_HELD:
                exempt.update(_strings(value))
            elif isinstance(value, str):
                constants.setdefault(value, home)
            else:
                for text in _strings(value):
                    collected.setdefault(text, home)
    return {**{text: home for text, home in collected.items() if text not in exempt}, **constants}


def _unheld_constants(tree: ast.AST) -> set[int]:
    """The ids of the constants not held: docstrings and the values of ``Literal[...]``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            skipped.update(id(inner) for inner in ast.walk(node.slice))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))
    return skipped


def copies(known: Mapping[str, str], package: Path = PACKAGE) -> list[str]:
    """``path:line: 'text' (home)`` for each copy of a fact outside its home in ``package``."""
    api_paths = tuple(text for text in known if text.startswith(("/api/", "/apis/")))
    out: list[str] = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative.startswith("kuberay/") or relative in ALLOWED:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        skipped = _unheld_constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in skipped:
                continue
            text = node.value
            home = known.get(text) or next((known[p] for p in api_paths if text.startswith(p)), None)
            if home is not None:
                out.append(f"{relative}:{node.lineno}: {text!r} (kuberay.{home})")
    return out


def test_the_fact_modules_hold_the_facts_the_code_reads() -> None:
    """The collection works: the facts named by the issue are among them, the vocabulary is not."""
    known = facts()
    for text, home in {
        "ray.io/v1": "api.API_VERSION",
        "/apis/ray.io/v1": "api.API_PATH",
        "rayclusters": "api.PLURALS",
        "1.7.0": "api.LATEST_VERSION_TEXT",
        "kueue.x-k8s.io/queue-name": "names.KUEUE_QUEUE_LABEL",
        "ray.io/kuberay-operator": "names.KUBERAY_CONTROLLER",
        "ray.io/originated-from-crd": "names.ORIGINATED_FROM_CRD_LABEL",
        "RAY_enable_autoscaler_v2": "names.AUTOSCALER_V2_ENV",
        "RAY_TLS_CA_CERT": "names.TLS_ENV_VARS",
        "ray-job-submitter": "names.SUBMITTER_CONTAINER",
        "ray-tls": "names.TLS_VOLUME",
        "nvidia.com/gpu": "resources.NVIDIA_GPU",
        "google.com/tpu": "resources.GOOGLE_TPU",
    }.items():
        assert known.get(text) == home, text
    assert not {"RayCluster", "RayCronJob", "serve", "baseline", "TPU"} & set(known)


def test_a_fact_is_spelled_only_in_its_home() -> None:
    found = copies(facts())
    assert not found, "import these from kuberay/ instead of spelling them:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('LABEL = "kueue.x-k8s.io/queue-name"\n', ["kueue.x-k8s.io/queue-name"]),
        ('path = f"/apis/ray.io/v1/namespaces/{ns}"\n', ["/apis/ray.io/v1/namespaces/"]),
        ('kind: Literal["ray.io/v1"] = API_VERSION\n"""ray.io/v1"""\n', []),
        ('limits = {"amd.com/gpu": 1, "serve": "x"}\n', []),
    ],
)
def test_the_check_finds_a_copy(tmp_path: Path, source: str, expected: list[str]) -> None:
    """The check can fail: a copy written in a new module is found, a type or a docstring is not."""
    (tmp_path / "new_module.py").write_text(source)
    found = copies(facts(), tmp_path)
    assert [line.split(": ", 1)[1].rsplit(" (", 1)[0] for line in found] == [repr(text) for text in expected]
