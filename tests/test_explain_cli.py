"""kuberay-explain, run as a real process: inputs, output formats, exit codes, and no pulumi import."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_kuberay.cli._io import InputError, Limits, parse_documents, read_documents, read_source

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "status"
NOW = "2026-11-30T10:30:00Z"


def fixture(name: str) -> Path:
    return FIXTURES / f"{name}.yaml"


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load(fixture(name).read_text())
    assert isinstance(data, dict)
    return data


def run(*args: str, stdin: bytes | str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "components"), env.get("PYTHONPATH")]))
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.cli.explain", "--now", NOW, *args],
        input=data if data is not None else b"",
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    )


def as_list(*names: str) -> str:
    """What ``kubectl get ... -o json`` prints for several objects."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "metadata": {"resourceVersion": ""},
            "items": [load(name) for name in names],
        }
    )


# --- exit codes -------------------------------------------------------------------------------------------


def test_all_ok_exits_0() -> None:
    result = run(str(fixture("raycluster-ready")), str(fixture("rayjob-complete")), str(fixture("rayservice-ready")))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("RayCluster ml/shared: healthy — ")
    assert lines[1].startswith("RayJob ml/train: succeeded — job SUCCEEDED after 42m30s")
    assert lines[2].startswith("RayService serving/chat: healthy — ")
    assert result.stderr == ""


@pytest.mark.parametrize(
    "name",
    [
        "rayjob-failed-app",
        "rayjob-initializing",
        "rayservice-upgrade-pending-failing",
        "raycluster-suspended",
        "rayjob-no-status",
        "rayjob-unknown-deployment-status",
    ],
)
def test_anything_not_ok_exits_1(name: str) -> None:
    result = run(str(fixture("raycluster-ready")), str(fixture(name)))
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(result.stdout.splitlines()) == 2


def test_failed_job_line() -> None:
    result = run(str(fixture("rayjob-failed-app")))
    assert result.stdout == (
        "RayJob ml/train: failed — job FAILED after 3m: Job entrypoint command failed with exit code 1, last"
        " available logs (truncated to 20,000 chars): … ValueError: learning rate must be positive;"
        " next: kubectl logs -n ml job/train\n"
    )


# --- inputs -------------------------------------------------------------------------------------------------


def test_kubectl_list_on_stdin_gives_one_line_per_object() -> None:
    names = [
        "rayjob-failed-app",
        "rayjob-initializing",
        "rayjob-complete",
        "raycluster-ready",
        "rayservice-rollback",
    ]
    result = run("-", stdin=as_list(*names))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == len(names)
    assert [line.split(":")[0] for line in lines] == [
        "RayJob ml/train",
        "RayJob ml/train",
        "RayJob ml/train",
        "RayCluster ml/shared",
        "RayService serving/chat",
    ]
    assert "waiting for cluster" in lines[1]


def test_no_arguments_reads_stdin() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pulumi_kuberay.cli.explain"],
        input=as_list("raycluster-ready").encode(),
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "components")},
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith("RayCluster ml/shared: healthy")


def test_typed_api_list_without_item_kinds() -> None:
    """A raw API list (RayJobList) leaves kind/apiVersion off its items."""
    item = load("rayjob-complete")
    del item["kind"], item["apiVersion"]
    payload = json.dumps({"apiVersion": "ray.io/v1", "kind": "RayJobList", "items": [item]})
    result = run("-", stdin=payload)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("RayJob ml/train: succeeded")


def test_multi_document_yaml(tmp_path: Path) -> None:
    text = "---\n".join(fixture(n).read_text() for n in ["raycluster-ready", "rayjob-complete"])
    text += "---\n# empty document\n---\n" + yaml.safe_dump(yaml.safe_load(as_list("rayservice-ready")))
    path = tmp_path / "objects.yaml"
    path.write_text(text)
    result = run(str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [d["kind"] for d in data] == ["RayCluster", "RayJob", "RayService"]
    lines = [int(d["source"].rsplit(":", 1)[1]) for d in data]
    assert lines == sorted(lines) and lines[0] >= 1
    source_lines = text.splitlines()
    for entry, line in zip(data, lines, strict=True):
        # the recorded line is where that object's first key is
        assert source_lines[line - 1].lstrip("- ").startswith(("apiVersion", "kind")), entry["source"]


def test_files_and_stdin_together() -> None:
    result = run(str(fixture("raycluster-ready")), "-", stdin=fixture("rayjob-retrying").read_text())
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) == 2
    assert "retrying" in result.stdout.splitlines()[1]


def test_json_format() -> None:
    result = run("--format", "json", "-", stdin=as_list("rayjob-failed-app", "raycluster-ready"))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert [d["phase"] for d in data] == ["failed", "healthy"]
    job = data[0]
    assert set(job) >= {
        "kind",
        "name",
        "namespace",
        "phase",
        "ok",
        "summary",
        "evidence",
        "next_step",
        "source",
    }
    assert job["ok"] is False and data[1]["ok"] is True
    assert {"path": "status.reason", "value": "AppFailed"} in job["evidence"]
    assert job["source"].startswith("<stdin>:")


def test_empty_list_is_not_an_error() -> None:
    result = run("-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    assert result.returncode == 0
    assert result.stdout == ""
    assert "no objects" in result.stderr


def test_non_kuberay_object_is_not_ok() -> None:
    result = run("-", stdin=json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}))
    assert result.returncode == 1
    assert "unknown" in result.stdout and "not a KubeRay object" in result.stdout


# --- unreadable input: exit 2, one line on stderr, no traceback -------------------------------------------

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)

GARBAGE: list[tuple[str, bytes]] = [
    ("invalid yaml", b"kind: RayJob\nmetadata: [unclosed\n"),
    ("invalid json", b'{"kind": "RayJob", '),
    ("not utf-8", b"kind: RayJob\nname: \xff\xfe\n"),
    ("binary", bytes(range(256))),
    ("scalar document", b"just some text\n"),
    ("list document", b"- 1\n- 2\n"),
    ("list item not an object", b'{"kind": "List", "items": ["oops"]}'),
    ("empty", b""),
    ("only comments", b"# nothing here\n---\n"),
    ("yaml bomb", BOMB.encode()),
    ("recursive alias", b"&a [*a]\n"),
    ("deep nesting", b"[" * 10_000 + b"]" * 10_000),
    ("python tag", b"!!python/object/apply:os.system ['echo hi']\n"),
]


@pytest.mark.parametrize(("label", "payload"), GARBAGE, ids=[label for label, _ in GARBAGE])
def test_garbage_exits_2_with_one_line(label: str, payload: bytes) -> None:
    result = run("-", stdin=payload)
    assert result.returncode == 2, (label, result.stdout, result.stderr)
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("kuberay-explain: error: <stdin>")
    assert "Traceback" not in result.stderr


def test_missing_file_and_empty_directory_exit_2(tmp_path: Path) -> None:
    for target in (str(tmp_path / "nope.yaml"), str(tmp_path)):
        result = run(target)
        assert result.returncode == 2
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
        assert target in result.stderr
    assert "no YAML or JSON files in this folder" in run(str(tmp_path)).stderr


def test_directory_is_read_like_the_linter_does(tmp_path: Path) -> None:
    (tmp_path / "nested").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "a.yaml").write_text(fixture("raycluster-ready").read_text())
    (tmp_path / "nested" / "b.yml").write_text(fixture("raycluster-ready").read_text())
    (tmp_path / ".hidden" / "c.yaml").write_text("not: [valid")
    (tmp_path / "notes.txt").write_text("ignored")
    result = run("--format", "json", str(tmp_path))
    assert result.returncode == 0, result.stderr
    sources = [entry["source"] for entry in json.loads(result.stdout)]
    assert [s.rsplit(":", 1)[0] for s in sources] == [str(tmp_path / "a.yaml"), str(tmp_path / "nested" / "b.yml")]


def test_bad_now_exits_2() -> None:
    result = run("--now", "yesterday", str(fixture("raycluster-ready")))
    assert result.returncode == 2 and "Traceback" not in result.stderr


# --- never imports pulumi ---------------------------------------------------------------------------------


def test_never_imports_pulumi() -> None:
    code = (
        "import sys, json\n"
        "from pulumi_kuberay.cli.explain import main\n"
        f"rc = main(['--format', 'json', '--now', '{NOW}', *sys.argv[1:]])\n"
        "roots = ('pulumi', 'pulumi_kubernetes', 'grpc')\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in roots)\n"
        "print(json.dumps(heavy), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    files = [str(p) for p in sorted(FIXTURES.glob("*.yaml"))]
    result = subprocess.run(
        [sys.executable, "-c", code, *files],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "components")},
        check=False,
        timeout=120,
    )
    assert result.returncode == 1  # some snapshots are not ok
    assert json.loads(result.stderr.splitlines()[-1]) == []
    assert len(json.loads(result.stdout)) == len(files)


def test_console_script_if_installed() -> None:
    script = Path(sys.executable).parent / "kuberay-explain"
    if not script.exists():
        pytest.skip("kuberay-explain is not installed in this environment (pip install -e .)")
    result = subprocess.run(
        [str(script), str(fixture("raycluster-ready"))],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("RayCluster ml/shared: healthy")


# --- the shared reader, directly ----------------------------------------------------------------------------


def test_reader_reports_document_start_lines() -> None:
    text = "# header\napiVersion: v1\nkind: A\n---\n\nkind: B\n---\nkind: List\nitems:\n- kind: C\n- kind: D\n"
    docs = parse_documents(text, "x.yaml")
    assert [(d.data["kind"], d.line, d.index, d.item) for d in docs] == [
        ("A", 2, 0, None),
        ("B", 6, 1, None),
        ("C", 10, 2, 0),
        ("D", 11, 2, 1),
    ]
    assert docs[0].where == "x.yaml:2"
    unflattened = parse_documents(text, "x.yaml", flatten_lists=False)
    assert [d.is_list for d in unflattened] == [False, False, True]
    assert unflattened[2].item_lines == (10, 11)


def test_reader_keeps_timestamps_as_strings_and_reads_json_streams() -> None:
    docs = parse_documents('{"kind": "A", "t": "2026-01-01T00:00:00Z"}\n\n{"kind": "B"}\n', "s")
    assert [(d.data["kind"], d.line) for d in docs] == [("A", 1), ("B", 3)]
    (doc,) = parse_documents("t: 2026-01-01T00:00:00Z\n", "s")
    assert doc.data["t"] == "2026-01-01T00:00:00Z"


def test_reader_limits(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(InputError, match="larger than 1000 bytes"):
        read_documents([str(big)], limits=Limits(max_bytes=1000))
    with pytest.raises(InputError, match="alias bomb"):
        parse_documents(BOMB, "bomb")
    with pytest.raises(InputError, match="nested deeper than 5"):
        parse_documents("a: {b: {c: {d: {e: {f: 1}}}}}", "deep", limits=Limits(max_depth=5))
    with pytest.raises(InputError, match="nested deeper than 5"):
        parse_documents('{"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}', "deep", limits=Limits(max_depth=5))
    error = None
    try:
        parse_documents(b"kind: A\nx: \xc3\x28\n", "bad.yaml")
    except InputError as exc:
        error = exc
    assert error is not None and str(error) == "bad.yaml:2: not UTF-8 text (byte 0xc3 at offset 11)"


def test_reader_path_lines_for_the_linter(tmp_path: Path) -> None:
    """kuberay-lint reads through read_source(..., with_path_lines=True) and flattens Lists itself."""
    path = tmp_path / "job.yaml"
    path.write_text("kind: RayJob\nspec:\n  workerGroupSpecs:\n  - groupName: a\n    replicas: 2\n")
    source = read_source(str(path), with_path_lines=True)
    assert source.name == str(path)
    (doc,) = source.documents
    assert doc.path_lines["spec.workerGroupSpecs[0].replicas"] == 5
    assert doc.path_lines["spec.workerGroupSpecs[0]"] == 4
    assert doc.path_lines[""] == 1
    pretty = json.dumps(json.loads(as_list("raycluster-ready", "rayjob-complete")), indent=2)
    listed = parse_documents(pretty, "list.json", with_path_lines=True)
    item_starts = [number for number, text in enumerate(pretty.splitlines(), 1) if text == "    {"]
    assert [d.line for d in listed] == item_starts
    assert listed[1].path_lines["status.jobDeploymentStatus"] > listed[1].line
    kept = read_source("-", stdin=io.BytesIO(as_list("rayjob-complete").encode()), with_path_lines=True)
    assert kept.name == "<stdin>" and kept.documents[0].is_list
    assert "items[0].status.jobStatus" in kept.documents[0].path_lines


def test_a_deadline_without_the_field_in_the_spec_is_named_from_the_status() -> None:
    edited = run(str(fixture("rayjob-failed-deadline-spec-edited")))
    assert edited.returncode == 1
    assert edited.stdout.strip() == (
        "RayJob ml/train: failed — activeDeadlineSeconds (600s when it fired; the spec no longer sets it) exceeded after 10m; the job was still RUNNING (not retried); next: kubectl logs -n ml job/train (raise activeDeadlineSeconds if the job just needs longer)"
    )
    assert "?s" not in run(str(FIXTURES)).stdout
