"""Every rule module, imported plainly (each declares its rules at import). Loaded by ``rules`` on first use.

Rule modules import only the engine (``_engine``, ``_examples``) and the readers (``_paths``, ``_kuberay``,
``_serve_config``), never each other. A rule module that fails to import fails this import: a broken
catalogue must be loud, never silently thinner.
"""

from __future__ import annotations

from types import ModuleType

from . import cronjob, operator, practice, references, runtime, security, selection, structure, versions, webhook
from .cluster import auth_tls, autoscaler, gcs_ft, groups, history, network_policy
from .cluster import names as cluster_names
from .job import deletion, kueue, runtime_env, shutdown, submission
from .job import names as job_names
from .service import serve_apps, serve_deployments, serve_versions, spec, upgrade

#: The rule modules by room (the order of rules does not matter: findings are sorted, docs by severity and id).
RULE_MODULES: tuple[ModuleType, ...] = (
    structure,
    references,
    versions,
    cluster_names,
    groups,
    gcs_ft,
    autoscaler,
    history,
    auth_tls,
    network_policy,
    job_names,
    shutdown,
    deletion,
    submission,
    runtime_env,
    kueue,
    spec,
    upgrade,
    cronjob,
    operator,
    webhook,
    runtime,
    serve_apps,
    serve_deployments,
    serve_versions,
    selection,
    practice,
    security,
)
