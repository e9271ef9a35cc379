"""Running the oracle (``tools/kuberay-oracle``, built by ``scripts/ensure-oracle``) from the tests.

The oracle judges many documents per process: :meth:`Oracle.judge` sends a whole batch on stdin and gets one
JSON verdict per document back, in order.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ENV_VARS = ("KUBERAY_ORACLE", "KUBERAY_ORACLE_CRD_DIR", "KUBERAY_ORACLE_SAMPLES_DIR", "KUBERAY_ORACLE_OPERATOR_VERSION")

Verdict = dict[str, Any]


@dataclass(frozen=True)
class Oracle:
    binary: str
    crd_dir: str
    samples_dir: str
    operator_version: str  # "v1.6.1"
    default_gates: Mapping[str, bool]

    @property
    def kuberay_version(self) -> str:
        """The operator version as the catalogue's Target spells it (``1.6.1``)."""
        return self.operator_version.lstrip("v")

    def gates(self, which: str) -> dict[str, bool]:
        """``default``: the version's defaults; ``all``: every gate the operator version knows turned on."""
        if which == "default":
            return dict(self.default_gates)
        if which == "all":
            return dict.fromkeys(self.default_gates, True)
        raise ValueError(which)

    def judge(self, docs: Sequence[Any], gates: Mapping[str, bool]) -> list[Verdict]:
        """One verdict per document (a dict is sent as JSON, a str as YAML text), one oracle process."""
        if not docs:
            return []
        texts = [d if isinstance(d, str) else json.dumps(d) for d in docs]
        flag = ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items()))
        proc = subprocess.run(
            [self.binary, "--crd-dir", self.crd_dir, f"--feature-gates={flag}"],
            input="\n---\n".join(texts) + "\n",
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"kuberay-oracle failed ({proc.returncode}): {proc.stderr[-2000:]}")
        verdicts = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        if len(verdicts) != len(docs):
            raise RuntimeError(f"kuberay-oracle gave {len(verdicts)} verdicts for {len(docs)} documents")
        return verdicts


def _env_from_ensure() -> dict[str, str]:
    """Ask ``scripts/ensure-oracle --no-build --print-env`` for a cached build (never builds from a test)."""
    proc = subprocess.run(
        [str(REPO / "scripts" / "ensure-oracle"), "--no-build", "--print-env"],
        capture_output=True,
        text=True,
        check=False,
    )
    env: dict[str, str] = {}
    if proc.returncode == 0:
        for line in proc.stdout.splitlines():
            if line.startswith("export ") and "=" in line:
                name, _, value = line[len("export ") :].partition("=")
                env[name] = shlex.split(value)[0] if value else ""
    return env


@cache
def find_oracle() -> Oracle | None:
    """The oracle named by the KUBERAY_ORACLE* variables, else a cached build; None when there is none."""
    env = {name: os.environ.get(name, "") for name in ENV_VARS}
    if not env["KUBERAY_ORACLE"]:
        env = {**env, **_env_from_ensure()}
    binary = env.get("KUBERAY_ORACLE", "")
    if not binary or not os.access(binary, os.X_OK):
        return None
    proc = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    info = json.loads(proc.stdout)
    return Oracle(
        binary=binary,
        crd_dir=env["KUBERAY_ORACLE_CRD_DIR"],
        samples_dir=env.get("KUBERAY_ORACLE_SAMPLES_DIR", ""),
        operator_version=info["operatorVersion"],
        default_gates=info["featureGates"],
    )
