"""``kuberay-lint`` settings from a config file, found from the working directory upwards like ruff's.

A ``.kuberay-lint.yaml`` (or ``.kuberay-lint.yml``) file, or a ``[tool.kuberay-lint]`` table in ``pyproject.toml``;
the first directory (from the working directory up to the repository root or ``/``) holding either wins, and
``.kuberay-lint.yaml`` wins over ``pyproject.toml`` in the same directory. Keys (all optional; dashes or
underscores)::

    kuberay-version: "1.7.0"          # target operator version
    feature-gates: {RayClusterMTLS: true}
    environment: prod                 # dev | staging | prod
    allowed-registries: [docker.io/rayproject]
    gpu-budget: 16
    fail-on: high                     # low | medium | high | critical
    select: [security, rayjob-*]      # only these rules (ids, globs or categories)
    ignore: [image-tag-not-pinned]    # never these
    severity: {requests-not-equal-limits: low}   # per-rule severity overrides
    exclude: ["vendor/*", "charts/*/tests/*"]    # paths (globs, relative to the config file's directory)
    baseline: .kuberay-lint-baseline.json        # relative to the config file's directory
    helm-values: [values/prod.yaml]              # values files for charts (relative to the config file)

Command-line flags override the file; ``--select``/``--ignore`` given on the command line replace the file's.
Every problem is a :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pulumi_kuberay import rules
from pulumi_kuberay.model.suggest import did_you_mean
from pulumi_kuberay.rules import SEVERITY_ORDER, OrgOptions, TargetError, kebab

CONFIG_FILES = (".kuberay-lint.yaml", ".kuberay-lint.yml")
PYPROJECT_TABLE = "kuberay-lint"
_KEYS = (
    "kuberay-version",
    "feature-gates",
    "environment",
    *OrgOptions.keys(kebab),
    "fail-on",
    "select",
    "ignore",
    "severity",
    "exclude",
    "baseline",
    "helm-values",
)
CATEGORIES = ("correctness", "reliability", "security", "cost", "hygiene")


class ConfigError(ValueError):
    """A setting that cannot be used; the message names where it came from and how to fix it."""


@dataclass(frozen=True)
class LintConfig:
    """Settings from a config file (``source`` None: no file); paths already resolved against its directory."""

    source: Path | None = None
    kuberay_version: str | None = None
    feature_gates: Mapping[str, bool] | None = None
    environment: str | None = None
    options: OrgOptions = field(default_factory=OrgOptions)
    fail_on: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    baseline: Path | None = None
    helm_values: tuple[Path, ...] = ()

    @property
    def root(self) -> Path:
        """The directory relative paths (excludes, baseline) are taken from."""
        return self.source.parent if self.source is not None else Path.cwd()


def all_rule_ids() -> list[str]:
    """Every rule id of every scope (each object, the stack, the operator's setup)."""
    return list(rules.RULES)


def _category_of(rule_id: str) -> str | None:
    rule = rules.RULES.get(rule_id)
    return rule.category if rule is not None else None


def expand_selectors(selectors: Sequence[str], where: str) -> set[str]:
    """Rule ids named by ``selectors``: an id, a glob (``rayjob-*``), a category (``security``) or ``ALL``."""
    known = all_rule_ids()
    out: set[str] = set()
    for raw in selectors:
        item = raw.strip()
        if not item:
            continue
        if item.upper() == "ALL":
            out.update(known)
        elif item in CATEGORIES:
            out.update(r for r in known if _category_of(r) == item)
        elif any(ch in item for ch in "*?["):
            matched = fnmatch.filter(known, item)
            if not matched:
                raise ConfigError(f"{where}: {item!r} matches no rule id (see kuberay-lint --list-rules)")
            out.update(matched)
        elif item in known or item == rules.INTERNAL_ERROR_RULE_ID:
            out.add(item)
        else:
            guess = did_you_mean(item, known)
            hint = f"; {guess}" if guess else " (see kuberay-lint --list-rules)"
            raise ConfigError(f"{where}: unknown rule or category {item!r}{hint} Categories: {', '.join(CATEGORIES)}")
    return out


def split_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _find(start: Path) -> tuple[Path, dict[str, Any]] | None:
    for directory in (start, *start.parents):
        for name in CONFIG_FILES:
            candidate = directory / name
            if candidate.is_file():
                return candidate, _read_yaml(candidate)
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            table = _read_pyproject(pyproject)
            if table is not None:
                return pyproject, table
        if (directory / ".git").exists():
            return None  # the repository root: a config above it belongs to something else
    return None


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return data


def _read_pyproject(path: Path) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read as TOML: {exc}") from None
    table = data.get("tool", {}).get(PYPROJECT_TABLE)
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{PYPROJECT_TABLE}] must be a table")
    return table


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(split_list(value))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{where}: expected a list of strings, got {value!r}")


def load_config(path: Path | None = None, *, start: Path | None = None) -> LintConfig:
    """The config at ``path``, or the one discovered from ``start`` (default: the working directory)."""
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"{path}: config file not found")
        raw: dict[str, Any] | None
        if path.name == "pyproject.toml":
            raw = _read_pyproject(path)
            if raw is None:
                raise ConfigError(f"{path}: has no [tool.{PYPROJECT_TABLE}] table")
        else:
            raw = _read_yaml(path)
        return parse_config(raw, path)
    found = _find((start or Path.cwd()).resolve())
    return parse_config(found[1], found[0]) if found else LintConfig()


# C901, PLR0912: one branch per config key
def parse_config(raw: Mapping[str, Any], source: Path) -> LintConfig:  # noqa: C901, PLR0912
    settings = {str(k).replace("_", "-"): v for k, v in raw.items()}
    table = f"[tool.{PYPROJECT_TABLE}]" if source.name == "pyproject.toml" else ""
    where = f"{source}{' ' + table if table else ''}"
    unknown = sorted(set(settings) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(_KEYS)}")
    root = source.parent
    values: dict[str, Any] = {"source": source}
    if "kuberay-version" in settings:
        values["kuberay_version"] = str(settings["kuberay-version"])
    if "feature-gates" in settings:
        gates = settings["feature-gates"]
        if not isinstance(gates, Mapping) or not all(isinstance(v, bool) for v in gates.values()):
            raise ConfigError(f"{where}: feature-gates: expected {{GateName: true|false}}, got {gates!r}")
        values["feature_gates"] = {str(k): v for k, v in gates.items()}
    if "environment" in settings:
        values["environment"] = str(settings["environment"])
    try:
        values["options"] = OrgOptions.parse(settings, spell=kebab, where=f"{where}: ", text_lists=True)
    except TargetError as exc:
        raise ConfigError(str(exc)) from None
    if "fail-on" in settings:
        values["fail_on"] = _severity(settings["fail-on"], f"{where}: fail-on")
    if "select" in settings:
        values["select"] = _strings(settings["select"], f"{where}: select")
        expand_selectors(values["select"], f"{where}: select")
    if "ignore" in settings:
        values["ignore"] = _strings(settings["ignore"], f"{where}: ignore")
        expand_selectors(values["ignore"], f"{where}: ignore")
    if "severity" in settings:
        overrides = settings["severity"]
        if not isinstance(overrides, Mapping):
            raise ConfigError(f"{where}: severity: expected {{rule-id: low|medium|high|critical}}")
        checked: dict[str, str] = {}
        for rule_id, level in overrides.items():
            expand_selectors([str(rule_id)], f"{where}: severity")
            checked[str(rule_id)] = _severity(level, f"{where}: severity.{rule_id}")
        values["severity"] = checked
    if "exclude" in settings:
        values["exclude"] = _strings(settings["exclude"], f"{where}: exclude")
    if "baseline" in settings:
        if not isinstance(settings["baseline"], str):
            raise ConfigError(f"{where}: baseline: expected a file path")
        values["baseline"] = root / settings["baseline"]
    if "helm-values" in settings:
        values["helm_values"] = tuple(root / p for p in _strings(settings["helm-values"], f"{where}: helm-values"))
    return LintConfig(**values)


def _severity(value: Any, where: str) -> str:
    if value not in SEVERITY_ORDER:
        raise ConfigError(f"{where}: expected one of {', '.join(SEVERITY_ORDER)}, got {value!r}")
    return str(value)


def severity_overrides(overrides: Mapping[str, str]) -> dict[str, str]:
    """``{rule id: severity}`` with selectors (globs, categories) expanded; a more specific entry wins."""
    out: dict[str, str] = {}
    # categories and globs first, exact ids last, so `security: low` + `pod-security-restricted: high` does what it says
    ordered = sorted(overrides.items(), key=lambda item: item[0] in all_rule_ids())
    for selector, level in ordered:
        for rule_id in expand_selectors([selector], "severity"):
            out[rule_id] = level
    return out


def is_excluded(path: Path, patterns: Sequence[str], root: Path) -> bool:
    """``path`` (or a directory above it) matches one of the glob ``patterns``, taken relative to ``root``."""
    if not patterns:
        return False
    try:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        relative = path.as_posix()
    parts = relative.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(fnmatch.fnmatch(candidate, pattern.rstrip("/")) for pattern in patterns for candidate in candidates)
