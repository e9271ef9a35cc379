"""Finding the rule modules: every public module of the ``rules`` package (and its sub-packages) is imported
once, on first use; each declares its rules at import. No hand list: a new module is found by being there.

Rule modules import only the engine (``_engine``, ``_examples``), the typed settings (``operator.OperatorSetup``,
``_options``) and the readers (``kuberay.paths``, ``_manifest_readers``, ``_serve_config``), never each other.
Private modules (``_name``) are helpers and are not walked. A rule module that fails to import fails the load:
a broken catalogue must be loud, never silently thinner.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading

_PACKAGE = __name__.rsplit(".", 1)[0]
_lock = threading.Lock()
_modules: tuple[str, ...] | None = None


def rule_modules() -> tuple[str, ...]:
    """The public modules of the rules package, dotted and relative to it (``gcs_fault_tolerance``, ``cronjob_spec``)."""
    package = importlib.import_module(_PACKAGE)
    found: list[str] = []
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{_PACKAGE}."):
        relative = info.name.removeprefix(f"{_PACKAGE}.")
        if info.ispkg or any(part.startswith("_") for part in relative.split(".")):
            continue
        found.append(relative)
    return tuple(sorted(found))


def load() -> tuple[str, ...]:
    """Import every rule module once (thread-safe); returns their names."""
    global _modules
    if _modules is None:
        with _lock:
            if _modules is None:
                names = rule_modules()
                for name in names:
                    importlib.import_module(f"{_PACKAGE}.{name}")
                _modules = names
    return _modules
