"""What Pod validation refuses in a pod template's selectors: node affinity's matchFields
(``ValidateNodeFieldSelectorRequirement``), the label and namespace selectors of pod (anti-)affinity terms
(``ValidatePodAffinityTermSelector``) and their matchLabelKeys and mismatchLabelKeys
(``ValidateMatchLabelKeysAndMismatchLabelKeys``, after the API server merged the keys the Pod carries into the
selector: ``applyMatchLabelKeysAndMismatchLabelKeys``), a topology spread constraint's labelSelector and matchLabelKeys
(the same check after the same merge, ``applyMatchLabelKeys``: the MatchLabelKeysInPodTopologySpreadSelectorMerge gate
is on by default since 1.34, so ``ValidateMatchLabelKeysInTopologySpread``, the check without the merge, runs only on
an API server with the gate off).

A helper of ``pod-spec-value-invalid`` (rules/pod_spec.py): each problem is (path under the pod spec, message).
Plain Python, no pulumi.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pulumi_kuberay.kuberay.names import RAY_CLUSTER_LABEL
from pulumi_kuberay.kuberay.paths import PodTemplateRef, as_dict, as_list, is_unknown
from pulumi_kuberay.kuberay.paths import as_str as _text  # the string to judge (not one known only at apply)

from ._manifest_readers import is_dns1123_subdomain, label_value_error, qualified_name_error

Problem = tuple[str, str]

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
#: nodeFieldSelectorValidators: the only field a node selector term's matchFields may name (a node's name).
_NODE_FIELD = "metadata.name"
_SET_OPERATORS = ("In", "NotIn")
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")  # metav1.LabelSelectorOperator


def _strings(values: Any) -> list[str] | None:
    """A list of known strings, or None (absent, not known until apply, or a wrong type: a schema finding)."""
    if values is None or is_unknown(values) or not isinstance(values, list):
        return None
    return values if all(isinstance(v, str) and not is_unknown(v) for v in values) else None


def _field_problems(at: str, requirement: dict[str, Any]) -> Iterator[Problem]:
    operator, key, values = (
        _text(requirement.get("operator")),
        _text(requirement.get("key")),
        _strings(requirement.get("values")),
    )
    if operator is None or key is None or (values is None and requirement.get("values") is not None):
        return
    values = values or []
    if operator not in _SET_OPERATORS:
        yield (
            f"{at}.operator",
            f"matchFields operator {operator!r} is not In or NotIn (ValidateNodeFieldSelectorRequirement)",
        )
    elif len(values) != 1:
        yield (
            f"{at}.values",
            f"matchFields with operator {operator} takes exactly one value, a node name (ValidateNodeFieldSelectorRequirement)",
        )
    if key != _NODE_FIELD:
        yield (
            f"{at}.key",
            f"matchFields key {key!r} is not {_NODE_FIELD}, the only node field a term may match (ValidateNodeFieldSelectorRequirement)",
        )
    else:
        for i, value in enumerate(values):
            if not is_dns1123_subdomain(value):
                yield (
                    f"{at}.values[{i}]",
                    f"node name {value!r} is not a DNS-1123 subdomain (ValidateNodeFieldSelectorRequirement)",
                )


def _node_field_problems(node: dict[str, Any]) -> Iterator[Problem]:
    at = "affinity.nodeAffinity"
    terms = [
        (f"{at}.{_REQUIRED}.nodeSelectorTerms[{i}]", t)
        for i, t in enumerate(as_list(as_dict(node.get(_REQUIRED)).get("nodeSelectorTerms")))
    ]
    terms += [
        (f"{at}.{_PREFERRED}[{i}].preference", as_dict(p).get("preference"))
        for i, p in enumerate(as_list(node.get(_PREFERRED)))
    ]
    for term_at, term in terms:
        for j, requirement in enumerate(as_list(as_dict(term).get("matchFields"))):
            yield from _field_problems(f"{term_at}.matchFields[{j}]", as_dict(requirement))


def selector_problems(at: str, selector: Any) -> Iterator[Problem]:
    """ValidateLabelSelector (label values never allowed invalid on create): matchLabels labels; each expression's
    operator with its values, a qualified key, label values."""
    if not isinstance(selector, dict) or is_unknown(selector):
        return
    labels = selector.get("matchLabels")
    for key, value in labels.items() if isinstance(labels, dict) and not is_unknown(labels) else ():
        key_error = qualified_name_error(key) if _text(key) is not None else None
        value_error = label_value_error(value) if _text(value) is not None else None
        if key_error or value_error:
            yield (
                f'{at}.matchLabels["{key}"]',
                f"matchLabels {key!r}: {key_error or f'value {value!r}: {value_error}'} (ValidateLabelSelector)",
            )
    for j, expression in enumerate(as_list(selector.get("matchExpressions"))):
        expression, where = as_dict(expression), f"{at}.matchExpressions[{j}]"
        operator, key, values = (
            _text(expression.get("operator")),
            _text(expression.get("key")),
            _strings(expression.get("values")),
        )
        if operator is None or (values is None and expression.get("values") is not None):
            continue
        values = values or []
        if operator not in _SELECTOR_OPERATORS:
            yield (
                f"{where}.operator",
                f"label selector operator {operator!r} is not In, NotIn, Exists or DoesNotExist (case matters) (ValidateLabelSelectorRequirement)",
            )
        elif operator in _SET_OPERATORS and not values:
            yield f"{where}.values", f"operator {operator} needs values (ValidateLabelSelectorRequirement)"
        elif operator not in _SET_OPERATORS and values:
            yield f"{where}.values", f"operator {operator} takes no values (ValidateLabelSelectorRequirement)"
        key_error = qualified_name_error(key) if key is not None else None
        if key_error:
            yield f"{where}.key", f"label selector key {key!r}: {key_error} (ValidateLabelSelectorRequirement)"
        for i, value in enumerate(values):
            value_error = label_value_error(value)
            if value_error:
                yield (
                    f"{where}.values[{i}]",
                    f"label selector value {value!r}: {value_error} (ValidateLabelSelectorRequirement)",
                )


def _label_keys_problems(term: dict[str, Any], pod_labels: frozenset[str]) -> Iterator[Problem]:
    """ValidateMatchLabelKeysAndMismatchLabelKeys on a pod affinity term or topology spread constraint the API server
    merged: a key the Pod carries becomes an expression of the selector (In for matchLabelKeys, NotIn for
    mismatchLabelKeys)."""
    match, mismatch = _strings(term.get("matchLabelKeys")) or [], _strings(term.get("mismatchLabelKeys")) or []
    if not match and not mismatch:
        return
    selector = term.get("labelSelector")
    for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if keys and selector is None:
            yield field, f"{field} needs a labelSelector to add to (validateLabelKeys)"
        for i, key in enumerate(keys if selector is not None else ()):
            error = qualified_name_error(key)
            if error:
                yield f"{field}[{i}]", f"{field} {key!r} is not a label key: {error} (validateLabelKeys)"
    if isinstance(selector, dict) and not is_unknown(selector) and match:
        index = {key: i for i, key in enumerate(match)}
        labels = selector.get("matchLabels")
        seen = set(labels) if isinstance(labels, dict) and not is_unknown(labels) else set()
        merged = [k for e in as_list(selector.get("matchExpressions")) if isinstance(k := as_dict(e).get("key"), str)]
        merged += [k for k in (*match, *mismatch) if k in pod_labels]
        for key in merged:
            if key in index and key in seen:
                yield (
                    f"matchLabelKeys[{index[key]}]",
                    f"matchLabelKeys {key!r} is also a key of the labelSelector (the API server adds the Pod's {key} label to it) (ValidateMatchLabelKeysAndMismatchLabelKeys)",
                )
            seen.add(key)
    for i, key in enumerate(match):
        if key in mismatch:
            yield (
                f"matchLabelKeys[{i}]",
                f"label key {key!r} is in both matchLabelKeys and mismatchLabelKeys (ValidateMatchLabelKeysAndMismatchLabelKeys)",
            )


def _spread_problems(template: PodTemplateRef) -> Iterator[Problem]:
    pod_labels: frozenset[str] | None = None
    for i, constraint in enumerate(as_list(template.pod_spec.get("topologySpreadConstraints"))):
        at, constraint = f"topologySpreadConstraints[{i}]", as_dict(constraint)
        yield from selector_problems(f"{at}.labelSelector", constraint.get("labelSelector"))
        if constraint.get("matchLabelKeys"):
            pod_labels = _pod_labels(template) if pod_labels is None else pod_labels
            for suffix, problem in _label_keys_problems(constraint, pod_labels):
                yield f"{at}.{suffix}", problem


def _pod_labels(template: PodTemplateRef) -> frozenset[str]:
    """The label keys the Pod is created with, as far as known: the template's, and the cluster's for a Ray Pod
    (``labelPod``; its other labels are left out: a key missed is a finding missed, never a false one)."""
    labels = as_dict(template.template.get("metadata")).get("labels")
    keys = {k for k in labels if isinstance(k, str)} if isinstance(labels, dict) and not is_unknown(labels) else set()
    return frozenset(keys | ({RAY_CLUSTER_LABEL} if template.role != "submitter" else set()))


def pod_selector_problems(template: PodTemplateRef) -> Iterator[Problem]:
    """The problems of the template's node matchFields, pod affinity selectors and topology spread keys."""
    spec = template.pod_spec
    affinity = spec.get("affinity")
    if isinstance(affinity, dict) and affinity:
        yield from _node_field_problems(as_dict(affinity.get("nodeAffinity")))
        pod_labels: frozenset[str] | None = None
        for kind in ("podAffinity", "podAntiAffinity"):
            pod, at = as_dict(affinity.get(kind)), f"affinity.{kind}"
            terms = [(f"{at}.{_REQUIRED}[{i}]", as_dict(t)) for i, t in enumerate(as_list(pod.get(_REQUIRED)))]
            terms += [
                (f"{at}.{_PREFERRED}[{i}].podAffinityTerm", as_dict(as_dict(w).get("podAffinityTerm")))
                for i, w in enumerate(as_list(pod.get(_PREFERRED)))
            ]
            for term_at, term in terms:
                yield from selector_problems(f"{term_at}.labelSelector", term.get("labelSelector"))
                yield from selector_problems(f"{term_at}.namespaceSelector", term.get("namespaceSelector"))
                if term.get("matchLabelKeys") or term.get("mismatchLabelKeys"):
                    pod_labels = _pod_labels(template) if pod_labels is None else pod_labels
                    for suffix, problem in _label_keys_problems(term, pod_labels):
                        yield f"{term_at}.{suffix}", problem
    if spec.get("topologySpreadConstraints"):
        yield from _spread_problems(template)
