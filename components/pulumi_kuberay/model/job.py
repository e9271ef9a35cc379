"""Typed ``RayJob`` spec (ray.io/v1, KubeRay v1.7.0): every field of the CRD.

Where the model draws the line (the rule catalogue in ``rules/`` holds the operator's runtime checks):

* Checked here: the CRD contract (types, enums, ``minimum``s, the CEL rules of ``deletionStrategy`` and
  ``managedBy``). From Python also the invariants without which a RayJob cannot run at all: one of
  ``rayClusterSpec`` / ``clusterSelector`` (the selector naming a cluster in ``ray.io/cluster``),
  ``runtimeEnvYAML`` parsing to a mapping, ``entrypointResources`` a JSON object and ``submissionMode`` one of
  the four modes. A manifest is what the API server stores: these load (only the operator or Ray refuses them)
  and the rules report them (``entrypointResources`` is recorded in :attr:`RayJobSpec.stored_problems`).
* ``submissionMode``: the CRD has no enum (only the default ``K8sJobMode``), so the API server accepts any
  string, but the operator only knows four modes and a RayJob with another value never submits its job
  (rule ``rayjob-submission-mode-unknown``).
* Left to ``rules/`` (operator runtime validation, RJ-03..RJ-40): suspend/TTL/backoff combinations,
  SidecarMode restrictions, deletion-rule TTL ordering and duplicates, name lengths.

``runtimeEnvYAML`` and ``entrypointResources`` are strings in the CRD; from Python they also accept a
``dict``, rendered to YAML / JSON. A string is kept exactly as given, so manifests round-trip byte-for-byte.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import yaml
from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from pulumi_kuberay.model._yaml import YAMLError, first_document, parse_yaml, runtime_env_error

from ..kuberay import INT32_MAX
from ..kuberay import RAY_CLUSTER_LABEL as CLUSTER_SELECTOR_KEY
from ..kuberay import ManagedBy as ManagedBy
from ..kuberay.names import SUBMITTER_CONTAINER
from ._base import Int32, KubeModel, Self, wire_noop
from ._deferred import In, known
from ._errors import Problem, SpecError
from ._k8s import PodTemplateSpec
from ._object import KubeManifest
from .cluster import RayClusterSpec
from .pod import hardened_security_context, is_stored, is_wire, reject_on_wire

SubmissionMode = Literal["K8sJobMode", "HTTPMode", "InteractiveMode", "SidecarMode"]
"""How the job is submitted: a submitter Job (default), the operator over HTTP, by hand, or a head sidecar."""
DeletionPolicyType = Literal["DeleteCluster", "DeleteWorkers", "DeleteSelf", "DeleteNone"]

#: Label key of ``clusterSelector`` naming the RayCluster a job runs on: CLUSTER_SELECTOR_KEY (kuberay.names).


def _render_yaml_mapping(value: str | dict[str, Any], *, what: str, info: ValidationInfo) -> str:
    """A dict (Python only) becomes block YAML; a string is kept verbatim but must parse to a mapping."""
    if isinstance(value, dict):
        if is_wire(info):
            raise SpecError(f"{what} must be a YAML string in a manifest, got a mapping")
        return yaml.safe_dump(value, sort_keys=False, default_flow_style=False, width=1 << 16)
    try:
        parsed = parse_yaml(value)
    except yaml.YAMLError as exc:
        raise SpecError(f"{what} is not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if parsed is None:
        parsed = {}
    if not isinstance(parsed, dict):
        raise SpecError(
            f"{what} must be a YAML mapping (e.g. 'pip: [...]'), got {type(parsed).__name__}",
            fix="write the runtime environment as 'key: value' lines, or pass a dict",
        )
    return value


#: Name of the container of KubeRay's default submitter Pod (``GetDefaultSubmitterContainer``).
SUBMITTER_CONTAINER_NAME = SUBMITTER_CONTAINER


def default_submitter_template(head_image: str) -> dict[str, Any]:
    """The submitter Pod KubeRay uses when ``submitterPodTemplate`` is absent (``GetSubmitterTemplate``:
    the head image, limits 1 CPU / 1Gi, requests 500m / 200Mi, ``restartPolicy: Never``), plus the hardened
    security context of the Ray containers. KubeRay still fills in the command and environment."""
    return {
        "spec": {
            "containers": [
                {
                    "image": head_image,
                    "name": SUBMITTER_CONTAINER_NAME,
                    "resources": {
                        "limits": {"cpu": "1", "memory": "1Gi"},
                        "requests": {"cpu": "500m", "memory": "200Mi"},
                    },
                    "securityContext": hardened_security_context(),
                }
            ],
            "restartPolicy": "Never",
        }
    }


# --------------------------------------------------------------------------------------------------
# deletionStrategy


class DeletionPolicy(KubeModel):
    """Legacy ``onSuccess``/``onFailure`` entry of ``deletionStrategy`` (deprecated: see deletionRules)."""

    policy: DeletionPolicyType
    """What to delete once the job reached this outcome."""


class DeletionCondition(KubeModel):
    """When a deletion rule fires: one of ``jobStatus`` / ``jobDeploymentStatus``, after ``ttlSeconds``."""

    job_status: Literal["SUCCEEDED", "FAILED"] | None = None
    """The Ray job's final status the rule waits for, e.g. ``"FAILED"``."""
    job_deployment_status: Literal["Failed"] | None = None
    """(KubeRay >= 1.6) e.g. the job failed to deploy (submission failure, deadline exceeded)."""
    ttl_seconds: Annotated[int, Field(ge=0, le=INT32_MAX)] | None = None
    """Delay after the condition is met (CRD default 0)."""

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        if self.job_status is not None and self.job_deployment_status is not None:
            raise SpecError(
                "jobStatus and jobDeploymentStatus cannot be used together within the same deletion condition",
                field="jobDeploymentStatus",
                fix="split it into two rules",
            )
        if self.job_status is None and self.job_deployment_status is None:
            raise SpecError(
                "a deletion condition requires either jobStatus or jobDeploymentStatus",
                fix="set jobStatus: SUCCEEDED|FAILED or jobDeploymentStatus: Failed",
            )
        return self


class DeletionRule(KubeModel):
    """One ``deletionRules[]`` entry: apply ``policy`` when ``condition`` holds."""

    policy: DeletionPolicyType
    """What the operator deletes: ``DeleteCluster``, ``DeleteWorkers``, ``DeleteSelf`` or ``DeleteNone``."""
    condition: DeletionCondition
    """When: the job status (or deployment status) and the delay after it."""


class DeletionStrategy(KubeModel):
    """What the operator deletes after the job finishes (gate ``RayJobDeletionPolicy``, on by default in 1.7).

    Either ``deletion_rules`` or both legacy fields ``on_success`` and ``on_failure``; never both styles.
    """

    on_success: DeletionPolicy | None = None
    """Legacy (deprecated); needs ``on_failure`` too."""
    on_failure: DeletionPolicy | None = None
    """Legacy (deprecated); needs ``on_success`` too."""
    deletion_rules: Annotated[list[DeletionRule], Field(min_length=1)] | None = None
    """The rules, each a policy and a condition (KubeRay >= 1.5), e.g. delete the workers at once on success and the cluster an hour later."""

    @model_validator(mode="after")
    def _one_style(self) -> Self:
        legacy = self.on_success is not None or self.on_failure is not None
        if legacy and self.deletion_rules is not None:
            raise SpecError(
                "legacy policies (onSuccess/onFailure) and deletionRules cannot be used together",
                field="deletionRules",
                fix="express onSuccess/onFailure as deletionRules with jobStatus SUCCEEDED/FAILED",
            )
        if self.deletion_rules is None and (self.on_success is None or self.on_failure is None):
            missing = "onFailure" if self.on_success is not None else "onSuccess"
            raise SpecError(
                "deletionStrategy requires either both onSuccess and onFailure, or deletionRules",
                field=missing if legacy else None,
                fix=f"set {missing}" if legacy else "add deletionRules",
            )
        return self


class SubmitterConfig(KubeModel):
    """Settings of the K8sJobMode submitter ``batch/v1`` Job."""

    backoff_limit: Int32 | None = None
    """Retries of the submitter Job (operator default 2)."""


# --------------------------------------------------------------------------------------------------
# RayJobSpec


def _entrypoint_resources_error(text: str) -> SpecError | None:
    """Why ``ray job submit --entrypoint-resources`` refuses ``text`` (not a JSON object); None when it takes it."""
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return SpecError(f"entrypointResources is not valid JSON: {exc.msg}", fix="write e.g. '{\"custom_resource\": 1}'")
    if not isinstance(parsed, dict):
        return SpecError(f"entrypointResources must be a JSON object, got {type(parsed).__name__}")
    return None


class RayJobSpec(KubeModel):
    """``RayJob.spec``: a Ray job (``entrypoint``) plus the cluster it runs on.

    Give either ``ray_cluster_spec`` (a cluster created for the job) or ``cluster_selector``
    (``{"ray.io/cluster": "<existing RayCluster>"}``). ``rayClusterSpec`` edits after the job started are
    ignored by the operator: treat a RayJob as immutable.

    Example: ``RayJobSpec(entrypoint="python train.py", shutdown_after_job_finishes=True,
    ray_cluster_spec=RayClusterSpec(image="rayproject/ray:2.52.0", head_group_spec=HeadGroupSpec(cpu=2)))``.
    """

    entrypoint: In[str] | None = None
    """The command run as ``ray job submit -- <entrypoint>``, e.g. ``python /home/ray/samples/job.py``."""
    runtime_env_yaml: Annotated[str | dict[str, Any] | None, Field(alias="runtimeEnvYAML")] = None
    """Ray runtime environment: a YAML string, or (Python only) a dict rendered to YAML; must be a mapping."""
    job_id: In[str] | None = None
    """Submission id (operator default ``<rayjob>-<random>``); in InteractiveMode set it after submitting."""
    metadata: dict[str, In[str]] | None = None
    """Ray job metadata (``--metadata-json``; Ray >= 2.6)."""
    submission_mode: SubmissionMode | None = None
    """``K8sJobMode`` (CRD default), ``HTTPMode``, ``InteractiveMode`` or ``SidecarMode``."""
    entrypoint_num_cpus: int | float | None = None
    """CPUs reserved for the entrypoint (``--entrypoint-num-cpus``), e.g. ``1`` or ``0.5``."""
    entrypoint_num_gpus: int | float | None = None
    """GPUs reserved for the entrypoint (``--entrypoint-num-gpus``)."""
    entrypoint_resources: str | dict[str, int | float] | None = None
    """Custom resources for the entrypoint: a JSON object string, or (Python only) a dict rendered to JSON."""
    ray_cluster_spec: RayClusterSpec | None = None
    """The cluster created for this job (named ``<rayjob>-<random>``)."""
    cluster_selector: dict[str, In[str]] | None = None
    """``{"ray.io/cluster": "<name>"}``: run on an existing RayCluster instead."""
    submitter_pod_template: PodTemplateSpec | None = None
    """K8sJobMode submitter Pod (container 0 is the submitter); not with SidecarMode."""
    submitter_config: SubmitterConfig | None = None
    """Options of the submitter Job (K8sJobMode), e.g. ``SubmitterConfig(backoff_limit=2)``."""
    harden_submitter: bool = Field(default=True, exclude=True)
    """Python-only: write KubeRay's default submitter Pod out hardened when none is given (K8sJobMode);
    ``False`` leaves ``submitterPodTemplate`` out, so KubeRay uses its own default, as a manifest does."""
    shutdown_after_job_finishes: bool | None = None
    """Delete the RayCluster when the job finishes (after ``ttl_seconds_after_finished``)."""
    ttl_seconds_after_finished: Int32 | None = None
    """CRD default 0; > 0 requires ``shutdown_after_job_finishes``."""
    active_deadline_seconds: Int32 | None = None
    """Whole-RayJob deadline (> 0) before it fails with ``DeadlineExceeded``."""
    pre_running_deadline_seconds: Annotated[int, Field(ge=1, le=INT32_MAX)] | None = None
    """(KubeRay >= 1.6) deadline to reach Running."""
    backoff_limit: Int32 | None = None
    """RayJob-level retries (CRD default 0); each retry creates a new RayCluster."""
    deletion_strategy: DeletionStrategy | None = None
    """What the operator deletes once the job finishes (gate ``RayJobDeletionPolicy``)."""
    suspend: bool | None = None
    """Kueue-style suspension; requires ``shutdown_after_job_finishes``."""
    managed_by: ManagedBy | None = None
    """Controller owning the RayJob (immutable)."""

    _stored_problems: tuple[Problem, ...] = PrivateAttr(default=())

    @field_validator("harden_submitter", mode="before")
    @classmethod
    def _harden_submitter_is_python_only(cls, value: Any, info: ValidationInfo) -> Any:
        return reject_on_wire(value, info)

    @field_validator("submission_mode", mode="wrap")
    @classmethod
    def _any_mode_on_the_wire(cls, value: Any, handler: Any, info: ValidationInfo) -> Any:
        # The CRD has no enum and the operator accepts any string (then ignores the job: rule
        # rayjob-submission-mode-unknown, high). A manifest keeps it; from Python only the four modes.
        try:
            return handler(value)
        except ValueError:
            if is_wire(info) and isinstance(value, str):
                return value
            raise

    @field_validator("runtime_env_yaml")
    @classmethod
    def _runtime_env(cls, value: str | dict[str, Any] | None, info: ValidationInfo) -> str | None:
        if isinstance(value, str):  # as the operator reads it (UnmarshalRuntimeEnvYAML): the first document
            # stored as it is by the API server; the operator refuses it: rule rayjob-runtime-env-yaml-invalid
            error = None if is_stored(info) else runtime_env_error(value)
            if error is not None:
                raise SpecError(
                    f"runtimeEnvYAML {error}", fix="write the runtime environment as 'key: value' lines, or pass a dict"
                )
            return value
        return None if value is None else _render_yaml_mapping(value, what="runtimeEnvYAML", info=info)

    @field_validator("entrypoint_resources")
    @classmethod
    def _entrypoint_resources(
        cls, value: str | dict[str, int | float] | None, info: ValidationInfo
    ) -> str | None:
        if value is None:
            return None
        if isinstance(value, dict):
            if is_wire(info):
                raise SpecError("entrypointResources must be a JSON string in a manifest, got a mapping")
            return json.dumps(value)
        error = None if is_stored(info) else _entrypoint_resources_error(value)  # stored: recorded below
        if error is not None:
            raise error
        return value

    @model_validator(mode="after")
    def _record_stored_problems(self, info: ValidationInfo) -> Self:
        # The API server stores any string; the submitter's `ray job submit --entrypoint-resources` refuses it
        # (the job fails). No rule reads it, so the model records it for the schema rules (schema-invalid-value).
        text = self.entrypoint_resources
        error = _entrypoint_resources_error(text) if isinstance(text, str) and is_stored(info) else None
        if error is not None:
            self._stored_problems = (Problem("entrypointResources", error.message, "invalid_value", fix=error.fix),)
        return self

    @property
    def stored_problems(self) -> tuple[Problem, ...]:
        """What the operator or Ray refuses in a manifest that loaded as the API server stores it and that no rule
        of the catalogue reads (an ``entrypointResources`` that is not a JSON object), paths relative to the spec."""
        return self._stored_problems

    @model_validator(mode="after")
    def _one_cluster_source(self, info: ValidationInfo) -> Self:
        if is_stored(info):
            # A manifest with both sources, none, or a selector naming no cluster is stored by the API server; the
            # operator accepts both (selector mode wins: rule rayjob-cluster-spec-ignored) and refuses the others
            # (ValidateRayJobSpec: rules rayjob-cluster-source-missing and rayjob-cluster-selector-name-empty).
            return self
        # ValidateRayJobSpec: clusterSelector mode is len(ClusterSelector) != 0, so {} counts as unset.
        selector = self.cluster_selector or None
        # From Python both at once is a usage error; neither is left to the RayJob component, whose ``cluster=``
        # may supply the selector (it checks it then).
        if self.ray_cluster_spec is not None and selector is not None:
            raise SpecError(
                "rayClusterSpec and clusterSelector are mutually exclusive",
                field="clusterSelector",
                fix="keep rayClusterSpec to create a cluster for the job, or clusterSelector to use an existing one",
            )
        if selector is not None and not selector.get(CLUSTER_SELECTOR_KEY):
            raise SpecError(
                f"clusterSelector must name the cluster under {CLUSTER_SELECTOR_KEY!r}",
                field="clusterSelector",
                fix=f"clusterSelector: {{{CLUSTER_SELECTOR_KEY}: <RayCluster name>}}",
            )
        return self

    @model_validator(mode="after")
    @wire_noop
    def _harden_submitter(self, info: ValidationInfo) -> Self:
        # From Python a K8sJobMode job on its own cluster gets the operator's default submitter Pod, written
        # out with the hardened security context (a manifest is taken as written).
        if is_wire(info) or self.ray_cluster_spec is None:
            return self
        template = self.ray_cluster_spec.head_group_spec.template
        containers = template.spec.containers if template is not None and template.spec is not None else []
        image = containers[0].image if containers else None
        updated = self.with_default_submitter(image)
        if updated is not self:
            self.submitter_pod_template = updated.submitter_pod_template
        return self

    def with_default_submitter(self, head_image: str | None) -> RayJobSpec:
        """This spec with the default submitter Pod (K8sJobMode, none given, head image known) written out
        hardened; ``self`` when there is nothing to add."""
        if self.submission_mode not in (None, "K8sJobMode") or self.submitter_pod_template is not None:
            return self
        if not self.harden_submitter:
            return self
        if not head_image:
            return self
        template = PodTemplateSpec.model_validate(default_submitter_template(head_image))
        return self.model_copy(update={"submitter_pod_template": template})

    def missing_cluster_source(self) -> bool:
        """True when neither ``ray_cluster_spec`` nor ``cluster_selector`` is set (Python only).

        An empty selector counts as unset, as in ``ValidateRayJobSpec`` (``len(ClusterSelector) != 0``)."""
        return self.ray_cluster_spec is None and not self.cluster_selector

    @property
    def runtime_env(self) -> dict[str, Any] | None:
        """``runtimeEnvYAML`` parsed into a dict (a dict argument was rendered to YAML)."""
        if self.runtime_env_yaml is None:
            return None
        if isinstance(self.runtime_env_yaml, dict):
            return self.runtime_env_yaml
        try:
            parsed = first_document(self.runtime_env_yaml)  # what the operator reads
        except YAMLError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    @property
    def cluster_name(self) -> str | None:
        """The existing RayCluster selected by ``clusterSelector`` (``None`` for an inline cluster)."""
        return None if self.cluster_selector is None else known(self.cluster_selector.get(CLUSTER_SELECTOR_KEY))


class RayJobManifest(KubeManifest[RayJobSpec]):
    """A RayJob object; ``load_manifest`` returns it for ``kind: RayJob``.

    Example: ``RayJobManifest(metadata=ObjectMeta(name="job"), spec=RayJobSpec(...)).to_manifest()``.
    """

    kind: Literal["RayJob"] = "RayJob"
    """Always ``"RayJob"``."""


__all__ = [
    "CLUSTER_SELECTOR_KEY",
    "SUBMITTER_CONTAINER_NAME",
    "DeletionCondition",
    "DeletionPolicy",
    "DeletionPolicyType",
    "DeletionRule",
    "DeletionStrategy",
    "ManagedBy",
    "RayJobManifest",
    "RayJobSpec",
    "SubmissionMode",
    "SubmitterConfig",
    "default_submitter_template",
]
