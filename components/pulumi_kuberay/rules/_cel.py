"""A rule's check written in CEL, for the API server: ``declare(..., cel=Cel(...))`` beside the Python check.

:mod:`pulumi_kuberay.admission` turns every rule that declares one into validations of a ValidatingAdmissionPolicy
(the rules bound alike share one), so objects made with kubectl, Argo CD or an SDK meet the same rule in the API
server. The Python check stays the reference: ``tests/cluster/test_admission_policies.py`` holds the two to the
same verdict on every rule example and upstream sample.

An expression is true when the subject complies. ``over`` names the subject, each bound to a CEL variable:

- ``object``: the whole document (``object``);
- ``cluster``: each embedded RayClusterSpec, ``c`` (RayCluster ``spec``, RayJob ``spec.rayClusterSpec``, RayService
  ``spec.rayClusterConfig``, RayCronJob ``spec.jobTemplate.rayClusterSpec``);
- ``group``: the head group and each worker group, ``g``; ``worker``: each worker group, ``g``;
- ``job``: each RayJobSpec, ``j`` (RayJob ``spec``, RayCronJob ``spec.jobTemplate``);
- ``template``: each pod template (head, workers, submitter), ``t``;
- ``container``: each init and app container of each pod template, ``k``.

The object has passed the CRD schema when a validating policy runs (types are right) but any field may be absent:
guard with ``has()``. ``path`` is where the rule reports, relative to the subject (shown in the message);
``message`` defaults to the rule's title; ``also`` holds further checks of the same rule (each its own validation).

What several rules read is written once, below: the head container, its env and ports (``HEAD_CONTAINERS``,
``head_env_entries``, ``HEAD_PORTS``: variables of the policy, evaluated once per request), a group's Ray container
(``group_containers``, ``first_container_guard``), the job's deletion rules, the Pod Security checks, the version
parsers. A rule's expression composes them in an f-string; none repeats a guard chain.
Plain Python: never imports pulumi.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

Over = Literal["object", "cluster", "group", "worker", "job", "template", "container"]
OVERS: tuple[Over, ...] = get_args(Over)


@dataclass(frozen=True)
class Cel:
    """The rule's check in CEL (true = compliant) over one kind of subject; see the module docstring."""

    expression: str
    over: Over = "object"
    path: str = ""
    message: str | None = None
    also: tuple[Cel, ...] = ()

    def __post_init__(self) -> None:
        if self.over not in OVERS:
            raise ValueError(f"Cel over must be one of {', '.join(OVERS)}, got {self.over!r}")

    def parts(self) -> tuple[Cel, ...]:
        """This check and the further ones, each a validation of the rule's policy."""
        return (self, *(part for extra in self.also for part in extra.parts()))



#: k8s ``version.ParseGeneric`` (how the operator reads rayVersion; ``kuberay.paths.parse_generic_version``): white
#: space, an optional v, at least major.minor, anything after the numbers but a newline.
_GENERIC_VERSION = "'^[\\\\t\\\\n\\\\f\\\\r ]*v?[0-9]+(\\\\.[0-9]+)+[^\\\\n]*$'"
#: Masterminds semver v3 ``NewVersion`` without a pre-release (``kuberay.gosyntax.semver_parse``): v, major, an
#: optional minor and patch, build metadata.
_SEMVER_RELEASE = "'^v?[0-9]+(\\\\.[0-9]+)?(\\\\.[0-9]+)?(\\\\+[0-9A-Za-z-]+(\\\\.[0-9A-Za-z-]+)*)?$'"
_NUMBERS = "'[0-9]+(\\\\.[0-9]+)*'"
_UINT64_MAX = "'18446744073709551615'"


def _at_least(minimum: tuple[int, int, int]) -> str:
    """CEL over the list of version numbers ``n`` (major, minor, patch; missing ones 0): at least ``minimum``."""
    a, b, c = minimum
    minor, patch = "(size(n) > 1 ? n[1] : 0)", "(size(n) > 2 ? n[2] : 0)"
    return f"n[0] > {a} || (n[0] == {a} && ({minor} > {b} || ({minor} == {b} && {patch} >= {c})))"


def _numbers_at_least(parts: str, minimum: tuple[int, int, int], *, plain_major: bool, below: bool = False) -> str:
    """CEL over the list of digit strings ``parts``: every one a uint64 (and, ``plain_major``, the first not
    zero-prefixed) and (major, minor, patch), missing ones 0, at least ``minimum`` (``below``: less than it).
    Numbers past 18 significant digits are compared as 10**18 (above any minimum); leading zeros are dropped
    (``find``, once per number: the significant digits ``s`` are bound by a one-element list, as CEL of Kubernetes
    1.30 has no ``cel.bind``)."""
    fits = f"s.all(x, size(x) < 20 || (size(x) == 20 && x <= {_UINT64_MAX}))"
    value = "size(x) > 18 ? 1000000000000000000 : (x == '' ? 0 : int(x))"
    compared = f"!({_at_least(minimum)})" if below else _at_least(minimum)
    major = "!(p[0].startsWith('0') && p[0] != '0') && " if plain_major else ""
    return f"[{parts}].all(p, {major}[p.map(x, x.find('[1-9][0-9]*'))].all(s, {fits} && [s.map(x, {value})].all(n, {compared})))"


def generic_version_at_least(text: str, minimum: tuple[int, int, int]) -> str:
    """CEL, true when the string ``text`` (a CEL expression) parses as ParseGeneric does (no zero-prefixed major,
    every number a uint64) and is at least ``minimum``."""
    numbers = _numbers_at_least(f"{text}.find({_NUMBERS}).split('.')", minimum, plain_major=True)
    return f"({text}.matches({_GENERIC_VERSION}) && {numbers})"


def generic_version_below(text: str, minimum: tuple[int, int, int]) -> str:
    """CEL, true when the string ``text`` parses as ParseGeneric does and is less than ``minimum``: the same as
    ``generic_version_at_least(text, (0, 0, 0)) && !generic_version_at_least(text, minimum)``, parsed once."""
    numbers = _numbers_at_least(f"{text}.find({_NUMBERS}).split('.')", minimum, plain_major=True, below=True)
    return f"({text}.matches({_GENERIC_VERSION}) && {numbers})"


#: The cluster spec's rayVersion as the operator reads it (ParseGeneric): its numbers, as ``generic_version_at_least``
#: compares them, or [] when it is absent or no such version. A variable of the policy (``RULE_VARIABLES``): parsed
#: once per request, not once per rule, group and comparison.
RAY_VERSION = "variables.rayVersion"
_RV = "variables.clusters[0].rayVersion"
_RAY_VERSION_NUMBERS = (
    f"variables.clusters.size() > 0 && has({_RV}) && {_RV}.matches({_GENERIC_VERSION}) ? [{_RV}.find({_NUMBERS}).split('.')].map(p, !(p[0].startsWith('0') && p[0] != '0') ? [p.map(x, x.find('[1-9][0-9]*'))].map(s, s.all(x, size(x) < 20 || (size(x) == 20 && x <= {_UINT64_MAX})) ? s.map(x, size(x) > 18 ? 1000000000000000000 : (x == '' ? 0 : int(x))) : [])[0] : [])[0] : []"
)


def ray_version_at_least(minimum: tuple[int, int, int]) -> str:
    """CEL: the cluster spec's rayVersion is set and, read as ParseGeneric does, at least ``minimum`` (the same as
    ``has(c.rayVersion) && generic_version_at_least('c.rayVersion', minimum)``, from the policy's variable)."""
    return f"({RAY_VERSION}.size() > 0 && [{RAY_VERSION}].all(n, {_at_least(minimum)}))"


def semver_release_at_least(text: str, minimum: tuple[int, int, int]) -> str:
    """CEL, true when the string ``text`` parses as Masterminds semver's NewVersion does, is no pre-release and is
    at least ``minimum`` (a Masterminds constraint ``>= minimum``, which no pre-release satisfies)."""
    numbers = _numbers_at_least(f"{text}.find({_NUMBERS}).split('.')", minimum, plain_major=False)
    return f"({text}.matches({_SEMVER_RELEASE}) && {numbers})"


# --------------------------------------------------------------------------------------------------
# Shared parts: each written once here, read by the rules' expressions (``cel=Cel(...)``) and, for the head
# container, evaluated once per request as variables of the policy (``pulumi_kuberay.admission``).


def has_all(path: str) -> str:
    """``c.a.b`` -> ``has(c.a) && has(c.a.b)``: the guard chain to a field (the first name is a variable)."""
    parts = path.split(".")
    return " && ".join(f"has({'.'.join(parts[: i + 1])})" for i in range(1, len(parts)))


def is_true(field: str) -> str:
    """The boolean ``field`` is set and true."""
    return f"({has_all(field)} && {field})"


def items(field: str) -> str:
    """The list ``field``, or [] when absent."""
    return f"({has_all(field)} ? {field} : [])"


def first_container_guard(template: str) -> str:
    """The pod template ``template`` has a first container (KubeRay's Ray container)."""
    containers = f"{template}.spec.containers"
    return f"{has_all(containers)} && size({containers}) > 0"


def first_container(template: str) -> str:
    """The first container of ``template`` (guard with ``first_container_guard``)."""
    return f"{template}.spec.containers[0]"


def group_containers(group: str = "g") -> str:
    """The first container of the group ``group``, a 0/1-element list."""
    template = f"{group}.template"
    return f"({first_container_guard(template)} ? [{first_container(template)}] : [])"


#: The head group's Ray container (its first) as a 0/1-element list, its env and its ports (lists): variables of
#: the policy (``pulumi_kuberay.admission``), evaluated once per request. Each reads the object's one cluster spec
#: (``variables.clusters[0]``), the ``c`` of an expression over clusters.
HEAD_CONTAINERS = "variables.headContainers"
HEAD_ENV = "variables.headEnv"
HEAD_PORTS = "variables.headPorts"


def head_env_entries(name: str) -> str:
    """The head container's env entries named ``name`` (a list: KubeRay reads the first)."""
    return f"{HEAD_ENV}.filter(e, e.name == '{name}')"


# --------------------------------------------------------------------------------------------------
# Pod Security Standards (k8s.io/pod-security-admission policy/check_*.go) over a securityContext ``sc`` and a pod
# spec: the same checks as ``rules/security.py``, fed its tables.


def _quoted(values: Iterable[str]) -> str:
    return "[" + ", ".join(f"'{value}'" for value in values) + "]"


def _capability(name: str) -> str:
    """A capability name as the Pod Security checks compare it: upper case, without ``CAP_``."""
    return f"({name}.upperAscii().startsWith('CAP_') ? {name}.upperAscii().substring(4) : {name}.upperAscii())"


def _not_unconfined(sc: str, profile: str) -> str:
    return f"!(has({sc}.{profile}) && has({sc}.{profile}.type) && {sc}.{profile}.type == 'Unconfined')"


def _selinux_baseline(sc: str, selinux_types: Iterable[str]) -> str:
    options = f"{sc}.seLinuxOptions"
    fields = (
        f"(!has({options}.type) || {options}.type in {_quoted(selinux_types)})",
        f"(!has({options}.user) || {options}.user == '')",
        f"(!has({options}.role) || {options}.role == '')",
    )
    return f"(!has({options}) || ({' && '.join(fields)}))"


def _context_baseline(sc: str, selinux_types: Iterable[str]) -> str:
    """What pod and container securityContexts share: seccomp, AppArmor, SELinux, Windows host process."""
    return " && ".join(
        (
            _not_unconfined(sc, "seccompProfile"),
            _not_unconfined(sc, "appArmorProfile"),
            _selinux_baseline(sc, selinux_types),
            f"!(has({sc}.windowsOptions) && has({sc}.windowsOptions.hostProcess) && {sc}.windowsOptions.hostProcess)",
        )
    )


def container_context_baseline(sc: str, capabilities: Iterable[str], selinux_types: Iterable[str]) -> str:
    """The container securityContext ``sc`` meets baseline (guard ``has(sc)`` outside)."""
    return " && ".join(
        (
            f"!(has({sc}.privileged) && {sc}.privileged)",
            f"(!has({sc}.capabilities) || !has({sc}.capabilities.add) || {sc}.capabilities.add.all(cap, {_capability('cap')} in {_quoted(capabilities)}))",
            f"(!has({sc}.procMount) || {sc}.procMount == 'Default')",
            _context_baseline(sc, selinux_types),
        )
    )


#: The container lists of a pod spec, in the order the Pod Security checks walk them.
POD_CONTAINER_FIELDS = ("initContainers", "containers", "ephemeralContainers")


def _every_container(pod: str, check: str) -> str:
    """``check`` (over ``k``) holds for every container of the pod spec ``pod``."""
    return " && ".join(f"(!has({pod}.{field}) || {pod}.{field}.all(k, {check}))" for field in POD_CONTAINER_FIELDS)


def pod_baseline(sysctls: Iterable[str], capabilities: Iterable[str], selinux_types: Iterable[str]) -> str:
    """The pod template ``t`` meets the Pod Security Standard baseline."""
    pod, sc = "t.spec", "t.spec.securityContext"
    safe_sysctls = f"(!has({sc}.sysctls) || {sc}.sysctls.all(s, has(s.name) && s.name in {_quoted(sysctls)}))"
    pod_context = f"(!has({sc}) || ({safe_sysctls} && {_context_baseline(sc, selinux_types)}))"
    host = " && ".join(f"!(has({pod}.{key}) && {pod}.{key})" for key in ("hostNetwork", "hostPID", "hostIPC"))
    context = container_context_baseline("k.securityContext", capabilities, selinux_types)
    no_host_port = "(!has(k.ports) || k.ports.all(p, !has(p.hostPort) || p.hostPort == 0))"
    container = f"(!has(k.securityContext) || ({context})) && {no_host_port}"
    volumes = f"(!has({pod}.volumes) || {pod}.volumes.all(v, !has(v.hostPath)))"
    return f"!has({pod}) || ({host} && {volumes} && {pod_context} && {_every_container(pod, container)})"


def _inherited(sc: str, pod: str, field: str, default: str) -> str:
    """A container's ``field``, else its pod's, else ``default``."""
    return f"(has({sc}) && has({sc}.{field}) ? {sc}.{field} : (has({pod}) && has({pod}.securityContext) && has({pod}.securityContext.{field}) ? {pod}.securityContext.{field} : {default}))"


def container_restricted(sc: str, pod: str) -> str:
    """The container securityContext ``sc`` (in the pod spec ``pod``) meets restricted."""
    own = f"(has({sc}) && has({sc}.seccompProfile) && has({sc}.seccompProfile.type) && {sc}.seccompProfile.type != '')"
    pods = f"(has({pod}) && has({pod}.securityContext) && has({pod}.securityContext.seccompProfile) && has({pod}.securityContext.seccompProfile.type) ? {pod}.securityContext.seccompProfile.type : '')"
    seccomp = f"({own} ? {sc}.seccompProfile.type : {pods})"
    return "(" + " && ".join(
        (
            f"has({sc}) && has({sc}.allowPrivilegeEscalation) && {sc}.allowPrivilegeEscalation == false",
            f"{_inherited(sc, pod, 'runAsUser', '-1')} != 0",
            f"{_inherited(sc, pod, 'runAsNonRoot', 'false')} == true",
            f"{seccomp} in ['RuntimeDefault', 'Localhost']",
            f"has({sc}.capabilities) && has({sc}.capabilities.drop) && {sc}.capabilities.drop.exists(d, d.upperAscii() == 'ALL')",
            f"(!has({sc}.capabilities.add) || {sc}.capabilities.add.all(a, {_capability('a')} == 'NET_BIND_SERVICE'))",
        )
    ) + ")"


def pod_restricted(volume_types: Iterable[str]) -> str:
    """The pod template ``t`` meets the Pod Security Standard restricted."""
    pod = "t.spec"
    volumes = f"(!has({pod}.volumes) || {pod}.volumes.all(v, has(v.hostPath) || v.all(key, key == 'name' || key in {_quoted(volume_types)})))"
    run_as_user = f"(has({pod}) && has({pod}.securityContext) && has({pod}.securityContext.runAsUser) ? {pod}.securityContext.runAsUser : -1) != 0"
    return f"!has({pod}) || ({volumes} && {run_as_user} && {_every_container(pod, container_restricted('k.securityContext', pod))})"


#: The cluster spec ``c`` runs KubeRay's autoscaler sidecar in its head Pod.
AUTOSCALER_IN_HEAD = "!(has(c.enableInTreeAutoscaling) && c.enableInTreeAutoscaling) || !has(c.headGroupSpec) || !has(c.headGroupSpec.template)"
AUTOSCALER_CONTEXT = "c.autoscalerOptions.securityContext"


# --------------------------------------------------------------------------------------------------
# RayJob deletion rules (``ValidateRayJobSpec``'s deletionStrategy checks) over the job spec ``j``.

#: The job's deletionRules, or [].
DELETION_RULES = "(has(j.deletionStrategy) && has(j.deletionStrategy.deletionRules) ? j.deletionStrategy.deletionRules : [])"


def _condition_set(rule: str, field: str) -> str:
    return f"(has({rule}.condition) && has({rule}.condition.{field}) && {rule}.condition.{field} != '')"


#: The deletion rules the operator accepts one by one (one condition, a policy, ttlSeconds >= 0, a policy the job's
#: cluster allows): the others are reported by their own rules.
_VALID_DELETION_RULE = (
    f"{_condition_set('v', 'jobStatus')} != {_condition_set('v', 'jobDeploymentStatus')} && has(v.policy)",
    "(!has(v.condition) || !has(v.condition.ttlSeconds) || v.condition.ttlSeconds >= 0)",
    "!((has(j.clusterSelector) && size(j.clusterSelector) > 0) && v.policy in ['DeleteCluster', 'DeleteWorkers'])",
    "!((has(j.rayClusterSpec) && has(j.rayClusterSpec.enableInTreeAutoscaling) && j.rayClusterSpec.enableInTreeAutoscaling) && v.policy == 'DeleteWorkers')",
)
#: The valid deletion rules of the object's job spec: a variable of the policy (``RULE_VARIABLES``), filtered once per
#: request; an expression over ``j`` reads it as its own (an object holds at most one job spec).
VALID_DELETION_RULES = "variables.validDeletionRules"
_VALID_DELETION_RULES = f"variables.jobs.size() > 0 ? variables.jobs.map(j, {DELETION_RULES}.filter(v, ({' && '.join(_VALID_DELETION_RULE)})))[0] : []"


def deletion_condition(rule: str) -> str:
    """A deletion rule's condition as one string (``jobStatus X`` or ``jobDeploymentStatus Y``)."""
    return f"({_condition_set(rule, 'jobStatus')} ? 'jobStatus ' + {rule}.condition.jobStatus : 'jobDeploymentStatus ' + {rule}.condition.jobDeploymentStatus)"


def same_condition_rules(policy: str) -> str:
    """The valid deletion rules ``s`` with the condition of the rule ``r`` and the policy ``policy`` (CEL)."""
    return f"{VALID_DELETION_RULES}.filter(s, {deletion_condition('s')} == {deletion_condition('r')} && s.policy == {policy})"


def ttls_in_order(orders: Iterable[tuple[str, str]]) -> str:
    """Under the condition of the deletion rule ``r``, for each (earlier, later) policy pair of ``orders``: the later
    policy's ttlSeconds (0 when unset) is at least the earlier one's, when both have a rule. The valid rules with
    ``r``'s condition (``same``) and each policy's ttls are bound once (one-element lists), not recomputed per use."""
    def ttls(policy: str) -> str:
        return f"same.filter(s, s.policy == {policy!r}).map(s, (has(s.condition) && has(s.condition.ttlSeconds) ? s.condition.ttlSeconds : 0))"

    pairs = " && ".join(
        f"[{ttls(earlier)}].all(a, [{ttls(later)}].all(b, a.size() == 0 || b.size() == 0 || b[0] >= a[0]))"
        for earlier, later in orders
    )
    return f"[{VALID_DELETION_RULES}.filter(s, {deletion_condition('s')} == {deletion_condition('r')})].all(same, {pairs})"


def head_env_value_in(name: str, values: Iterable[str]) -> str:
    """The head container's first env entry named ``name`` has a value, one of ``values``."""
    return f"[{head_env_entries(name)}].all(l, l.size() > 0 && has(l[0].value) && l[0].value in {_quoted(values)})"


#: The policy variables the rules' shared parts read, beside those of ``pulumi_kuberay.admission`` (the cluster and
#: job specs): name -> (expression, the variables it reads).
RULE_VARIABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "rayVersion": (_RAY_VERSION_NUMBERS, ("clusters",)),
    "validDeletionRules": (_VALID_DELETION_RULES, ("jobs",)),
}
