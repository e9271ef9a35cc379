"""``kuberay-lint`` on hostile input: random bytes, invalid YAML, YAML bombs, huge, deep and non-UTF-8 files.

Unreadable input must end with exit code 2 and exactly one clear line on stderr (``kuberay-lint: <source>:
<problem>``), never a traceback, and the process must stay within bounded memory. The cheap cases run
in-process (``pulumi_kuberay.cli.lint.main``) over thousands of generated inputs; the expensive ones (bombs,
64 MiB files) run ``python -m pulumi_kuberay.lint`` in a subprocess whose peak RSS is measured.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from pulumi_kuberay.cli import lint

from .conftest import budget
from .strategies import json_like

PREFIX = "kuberay-lint: "
#: Peak RSS allowed for one lint process on hostile input (a 64 MiB read is the largest legitimate buffer).
MAX_RSS_MIB = 400


def run_in_process(data: bytes) -> tuple[int, str, str]:
    """``kuberay-lint -`` with ``data`` on stdin; (exit code, stdout, stderr)."""
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = lint.main(["-"])
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def assert_one_clear_line(stderr: str) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {lines!r}"
    assert lines[0].startswith(PREFIX), lines[0]
    assert "Traceback" not in stderr
    assert len(lines[0]) < 400, lines[0]


#: The same YAML implementation the command uses (libyaml when available: it reads e.g. a tab in a plain
#: scalar's continuation line, which the pure-Python scanner refuses).
_ORACLE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def yaml_fails(data: bytes) -> bool:
    """The oracle: neither PyYAML's safe loader nor the JSON decoder reads this text."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return True
    if "\x00" in text:
        return True
    try:
        list(yaml.load_all(text, Loader=_ORACLE_LOADER))
    except (yaml.YAMLError, ValueError, RecursionError):
        pass
    else:
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return True
    return False


@budget(400)
@given(data=st.binary(max_size=300))
def test_random_bytes_exit_0_or_2_with_one_line(data: bytes) -> None:
    code, _, err = run_in_process(data)
    assert code in (0, 2), (code, err)
    if code == 2:
        assert_one_clear_line(err)
    else:
        assert err == ""


_YAML_PIECES = st.sampled_from(
    ["a: [", "- b", "  c: d", "{", "}", "]", "'", '"', "key: 'unterminated", ": :", "\t- x", "&a x",
     "*a", "*undefined", "!!python/object:os.system x", "? [a]\n: 1", "---", "...", "%YAML 9.9", "@x",
     "kind: RayJob", "apiVersion: ray.io/v1", "spec:", "  entrypoint: x", "- {a: 1, a: 2}", "x: !!int abc"]
)


@budget(400)
@given(lines=st.lists(st.one_of(_YAML_PIECES, st.text(max_size=15)), min_size=1, max_size=8))
def test_invalid_yaml_exits_2_with_one_line(lines: list[str]) -> None:
    data = "\n".join(lines).encode()
    code, _, err = run_in_process(data)
    if yaml_fails(data):
        assert code == 2, (data, code, err)
        assert_one_clear_line(err)
    else:
        assert code in (0, 1, 2), (data, code, err)
        assert "Traceback" not in err
        if code == 2:
            assert_one_clear_line(err)


@budget(200)
@given(data=st.binary(min_size=1, max_size=200), cut=st.integers(0, 200))
def test_non_utf8_exits_2_with_one_line(data: bytes, cut: int) -> None:
    cut = min(cut, len(data))
    payload = b"kind: RayJob\n" + data[:cut] + b"\xff\xfe\xc3" + data[cut:]
    code, _, err = run_in_process(payload)
    assert code == 2
    assert_one_clear_line(err)
    assert "UTF-8" in err or "binary" in err


@budget(100)
@given(value=json_like)
def test_arbitrary_json_documents_never_crash(value: object) -> None:
    wrapped = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "x"}, "spec": value}
    code, _, err = run_in_process(json.dumps(wrapped).encode())
    assert code in (0, 1), (wrapped, code, err)
    assert err == ""
    code, _, err = run_in_process(json.dumps(value).encode())
    if isinstance(value, (dict, list)):
        assert code in (0, 1), (value, code, err)
        assert err == ""
    else:
        # A bare JSON scalar is read as YAML, which rejects JSON's surrogate-pair escapes ("\ud800\udc00"):
        # a clear exit 2 is acceptable for a document that cannot be a Kubernetes object anyway.
        assert code in (0, 2), (value, code, err)
        if code == 2:
            assert_one_clear_line(err)


# --------------------------------------------------------------------------------------------------
# Subprocess cases, with the peak RSS of the lint process.

_MEASURE = textwrap.dedent(
    """
    import json, resource, subprocess, sys
    proc = subprocess.run([sys.executable, "-m", "pulumi_kuberay.lint", *sys.argv[1:]],
                          capture_output=True, text=True, timeout=120)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    print(json.dumps({"code": proc.returncode, "stderr": proc.stderr, "peak_kib": peak}))
    """
)


def run_subprocess(path: Path) -> tuple[int, str, float]:
    """Run the real command on ``path`` from a fresh parent (so RUSAGE_CHILDREN is the lint process only)."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True,
                          timeout=180, check=True)
    result = json.loads(done.stdout)
    return result["code"], result["stderr"], result["peak_kib"] / 1024


def _billion_laughs(levels: int = 12) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        refs = ",".join(f"*a{i - 1}" for _ in range(10))
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


HOSTILE: dict[str, object] = {
    "billion-laughs.yaml": _billion_laughs(),
    "billion-laughs-in-spec.yaml": "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: j}\nspec:\n  x: &x [1]\n"
    + "".join(f"  x{i}: &x{i} [{','.join(['*x' if i == 0 else f'*x{i - 1}'] * 10)}]\n" for i in range(11)),
    "deep-flow.yaml": "[" * 100_000,
    "deep-json.json": "[" * 100_000 + "]" * 100_000,
    "deep-block.yaml": "".join("  " * i + "a:\n" for i in range(3000)),
    "recursive-alias.yaml": "a: &a [*a]\n",
    "non-utf8.yaml": b"kind: RayJob\nname: \xff\xfe\n",
    "utf16.yaml": "kind: RayJob\n".encode("utf-16"),
    "nul.yaml": b"kind: RayJob\x00\n",
    "long-line.yaml": "k: " + "x" * 5_000_000 + "\n",
    "many-docs.yaml": "---\na: 1\n" * 20_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_exits_with_one_line_in_bounded_memory(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    content = HOSTILE[name]
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(str(content))
    code, err, peak_mib = run_subprocess(path)
    assert peak_mib < MAX_RSS_MIB, f"{name}: peak RSS {peak_mib:.0f} MiB"
    assert "Traceback" not in err, err
    if name in ("long-line.yaml", "many-docs.yaml"):
        assert code == 0, err  # large but legitimate
    else:
        assert code == 2, (name, code, err)
        assert_one_clear_line(err)
        assert str(path) in err


def test_huge_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    chunk = b"# " + b"x" * (1024 * 1024 - 3) + b"\n"
    with path.open("wb") as handle:
        for _ in range(65):  # 65 MiB > the 64 MiB limit
            handle.write(chunk)
    code, err, peak_mib = run_subprocess(path)
    assert code == 2, err
    assert_one_clear_line(err)
    assert "larger than" in err
    assert peak_mib < MAX_RSS_MIB, f"peak RSS {peak_mib:.0f} MiB"


def test_missing_file_and_directory_of_junk(tmp_path: Path) -> None:
    code, err, _ = run_subprocess(tmp_path / "does-not-exist.yaml")
    assert code == 2
    assert_one_clear_line(err)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "a.yaml").write_bytes(b"\xff")
    (tmp_path / "junk" / "b.yaml").write_text("a: [")
    code, err, _ = run_subprocess(tmp_path / "junk")
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith(PREFIX) for line in lines), lines  # one line per file
