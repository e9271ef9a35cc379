"""Where the admission policies' time goes: the cost of each validation, messageExpression and variable, measured
in a real kube-apiserver.

``.venv/bin/python tools/admission_profile.py [--rounds 2] [--top 20] [--json out.json]`` starts a throw-away etcd and
kube-apiserver (``tools/local_apiserver.py``, the binaries of the ``scripts/ensure-kube`` cache; never builds) with the
v1.7.0 CRDs and sends the upstream samples' Ray objects as server-side dry-run creates (the admission benchmark's
requests, ``bench/_admission_child.py``), in three settings:

1. **One policy per expression.** Every validation, every messageExpression and every variable of the staging
   policies (``admission.admission_policies("staging")``) becomes a policy of its own, all bound with ``Audit`` only
   (nothing is refused). The API server's ``apiserver_validating_admission_policy_check_duration_seconds`` times one
   validation's evaluation, but only of a validation that fails or errs (``dispatcher.go``: a passing one is not
   observed), so each profile policy's measured validation is ``!([<expression>].size() == 1)``: it always fails
   and its evaluation is the expression's. The variables the expression reads are evaluated first by a passing
   validation of the same policy (unobserved; a policy's variables are computed once per evaluation context), so
   the time is the expression's own; each variable is measured the same way with its own dependencies warmed.
   Result: the mean microseconds per request of each expression (``_sum / _count`` per policy).
2. **What a policy costs around its expressions** (matching, the activation's conversions of the request, the
   object and the namespace, the messages): dry-run latencies with no policy, with ten trivial policies
   (``object.metadata.name != 'profile-probe'``) and with the staging policies with and without their
   messageExpressions. The API server evaluates every messageExpression of a policy on every request, failing or
   not (``validator.Validate``: ``messageFilter.ForInput`` runs them all, in a composition context of its own, so
   the variables they read are computed a second time).
3. CEL's static cost estimate is not reported by the API server (only a refusal when an expression's estimate
   exceeds the limit), so it is not shown here.

Prints a table (top N expressions by mean cost per request) and the latency phases; ``--json`` writes everything.
Needs the whole machine for a minute: not a test, a tool (the benchmark ``python -m bench --only admission`` gives
the figures the goal is about).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO / "components"))

from local_apiserver import LocalApiServer  # noqa: E402

from bench._admission_child import NAMESPACE, Api, _kube_bin  # noqa: E402  (the benchmark's requests)
from bench._rules_child import sample_documents  # noqa: E402
from bench._stats import median, percentile  # noqa: E402

PROFILE_PREFIX = "prof-"
PROBE_NAME = "profile-probe"
_POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
_BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
_VARIABLE_USE = re.compile(r"variables\.([A-Za-z]+)")
_METRIC = re.compile(
    r"^apiserver_validating_admission_policy_check_duration_seconds_(sum|count)\{([^}]*)\} ([0-9.e+-]+)$", re.M
)
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def _closure(expression: str, variables: Mapping[str, str]) -> list[str]:
    """The variables ``expression`` reads, with those they read, in the policy's (dependency) order."""
    wanted: set[str] = set()
    todo = _VARIABLE_USE.findall(expression)
    while todo:
        name = todo.pop()
        if name in wanted or name not in variables:
            continue
        wanted.add(name)
        todo.extend(_VARIABLE_USE.findall(variables[name]))
    return [name for name in variables if name in wanted]


def _warm(names: Iterable[str]) -> str:
    """A passing validation that evaluates ``names`` (each variable once; the results are kept for the policy)."""
    terms = [f"size([variables.{name}])" for name in names]
    return " + ".join(terms) + " >= 0" if terms else "true"


def _policy(name: str, source: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """A profile policy named ``name``: ``source``'s match (constraints and conditions), failing open, then ``spec``
    (its variables and validations)."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "pulumi-kuberay-profile"}},
        "spec": {
            "failurePolicy": "Ignore",
            "matchConstraints": source["spec"]["matchConstraints"],
            "matchConditions": source["spec"].get("matchConditions", []),
            **spec,
        },
    }


def _profile_policy(name: str, source: Mapping[str, Any], expression: str, warm: list[str]) -> dict[str, Any]:
    """A policy that times ``expression`` alone: ``source``'s variables and match, ``warm`` evaluated first."""
    return _policy(
        name,
        source,
        {
            "variables": source["spec"].get("variables", []),
            "validations": [
                {"expression": _warm(warm), "message": "warm-up"},
                {"expression": f"!([{expression}].size() == 1)", "message": "profile"},
            ],
        },
    )


def _binding(policy_name: str, actions: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {
            "name": f"{policy_name}-binding",
            "labels": {"app.kubernetes.io/managed-by": "pulumi-kuberay-profile"},
        },
        "spec": {"policyName": policy_name, "validationActions": actions},
    }


def profile_policies(policies: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """One policy per validation, messageExpression and variable of ``policies``, and what each measures."""
    out: list[dict[str, Any]] = []
    what: dict[str, dict[str, Any]] = {}
    for p_index, source in enumerate(doc for doc in policies if doc["kind"] == "ValidatingAdmissionPolicy"):
        spec = source["spec"]
        variables = {v["name"]: v["expression"] for v in spec.get("variables", [])}
        rule_ids = str(source["metadata"]["annotations"].get("pulumi-kuberay.io/rules", "")).split(",")

        def add(
            kind: str,
            label: str,
            expression: str,
            rule: str,
            *,
            warm: list[str],
            src: Mapping[str, Any] = source,
            at: int = p_index,
        ) -> None:
            name = f"{PROFILE_PREFIX}{at}-{kind}-{len(out)}"
            out.append(_profile_policy(name, src, expression, warm))
            what[name] = {
                "kind": kind,
                "label": label,
                "rule": rule,
                "policy": src["metadata"]["name"],
                "chars": len(expression),
            }

        for name, expression in variables.items():
            add("variable", name, f"variables.{name}", "", warm=_closure(expression, variables))
        for v_index, validation in enumerate(spec["validations"]):
            message = str(validation.get("message", ""))
            rule = message.split(" ", 1)[0] if message.split(" ", 1)[0] in rule_ids else "?"
            add(
                "validation",
                f"{rule}#{v_index}",
                validation["expression"],
                rule,
                warm=_closure(validation["expression"], variables),
            )
            if validation.get("messageExpression"):
                text = validation["messageExpression"]
                add("message", f"{rule}#{v_index}", text, rule, warm=_closure(text, variables))
    return out, what


def _metrics(server: LocalApiServer) -> dict[str, tuple[float, float]]:
    """policy name -> (seconds summed, evaluations counted) of every profile policy, over every label set."""
    with urllib.request.urlopen(f"{server.api_url}/metrics", context=server.ssl_context(), timeout=60) as response:
        text = response.read().decode()
    out: dict[str, list[float]] = {}
    for which, labels, value in _METRIC.findall(text):
        policy = dict(_LABEL.findall(labels)).get("policy", "")
        if policy.startswith(PROFILE_PREFIX):
            pair = out.setdefault(policy, [0.0, 0.0])
            pair[0 if which == "sum" else 1] += float(value)
    return {name: (s, c) for name, (s, c) in out.items()}


def _latencies(api: Api, docs: list[dict[str, Any]], n: int) -> dict[str, float]:
    conn = api.connection()
    try:
        times = [api.dry_run(conn, docs[i % len(docs)])[0] for i in range(n + 20)][20:]
    finally:
        conn.close()
    return {"p50_ms": median(times), "p99_ms": percentile(times, 0.99), "mean_ms": sum(times) / len(times)}


def _probe(docs: list[dict[str, Any]]) -> dict[str, Any]:
    first = docs[0]
    return {**first, "metadata": {**first["metadata"], "name": PROBE_NAME}}


def _wait(api: Api, probe: dict[str, Any], refused: bool, timeout: float = 120) -> None:
    """Until the probe is refused (``refused``) or admitted: the policies' informer has caught up."""
    conn = api.connection()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            _, code = api.dry_run(conn, probe)
            if (code != 201) == refused:
                return
            time.sleep(0.3)
    finally:
        conn.close()
    raise RuntimeError(f"the probe was never {'refused' if refused else 'admitted'}")


def _probe_policy(name: str, source: Mapping[str, Any]) -> dict[str, Any]:
    """A policy refusing only the probe (so its activation shows), otherwise passing: the cost of one policy."""
    return _policy(
        name, source, {"validations": [{"expression": f"object.metadata.name != '{PROBE_NAME}'", "message": "probe"}]}
    )


def _install(
    server: LocalApiServer, docs: list[dict[str, Any]], actions: Mapping[str, list[str]] | None = None
) -> None:
    """Create ``docs`` (policies and bindings); ``actions``: policy name -> actions, a binding for each policy."""
    for doc in docs:
        server.create(doc)
        if actions is not None and doc["kind"] == "ValidatingAdmissionPolicy" and doc["metadata"]["name"] in actions:
            server.create(_binding(doc["metadata"]["name"], actions[doc["metadata"]["name"]]))


def _clear(server: LocalApiServer, api: Api, probe: dict[str, Any]) -> None:
    for path in (_BINDINGS, _POLICIES):
        for label in (
            "app.kubernetes.io/managed-by=pulumi-kuberay-profile",
            "app.kubernetes.io/managed-by=pulumi-kuberay",
        ):
            server.delete_collection(path, label)
    _wait(api, probe, refused=False)


def _without_messages(policies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for doc in policies:
        if doc["kind"] == "ValidatingAdmissionPolicy":
            spec = {
                **doc["spec"],
                "validations": [
                    {k: v for k, v in val.items() if k != "messageExpression"} for val in doc["spec"]["validations"]
                ],
            }
            doc = {**doc, "spec": spec}
        out.append(doc)
    return out


def run(rounds: int, n: int) -> dict[str, Any]:
    import yaml
    from pulumi_kuberay import admission

    reference = Path(os.environ.get("KUBERAY_REFERENCE_DIR", REPO.parent / "shared"))
    crds = [yaml.safe_load(p.read_text()) for p in sorted((reference / "kuberay" / "v1.7.0" / "crds").glob("*.yaml"))]
    docs = [{**d, "metadata": {**(d.get("metadata") or {}), "namespace": NAMESPACE}} for d in sample_documents()]
    policies = admission.admission_policies("staging")
    source = next(doc for doc in policies if doc["kind"] == "ValidatingAdmissionPolicy")
    probe = _probe(docs)
    work = Path(tempfile.mkdtemp(prefix="kuberay-admission-profile-"))
    result: dict[str, Any] = {"documents": len(docs), "rounds": rounds}
    try:
        with LocalApiServer(_kube_bin(), work) as server:
            server.install_crds(crds)
            server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
            api = Api(server)
            phases: dict[str, dict[str, float]] = {"none": _latencies(api, docs, n)}

            # 2. Latency phases: ten trivial policies; the staging policies with and without messageExpressions.
            trivial = [_probe_policy(f"{PROFILE_PREFIX}trivial-{i}", source) for i in range(10)]
            _install(server, trivial, {doc["metadata"]["name"]: ["Deny"] for doc in trivial})
            _wait(api, probe, refused=True)
            phases["trivial_10"] = _latencies(api, docs, n)
            _clear(server, api, probe)
            for label, variant in (("staging", policies), ("staging_no_messages", _without_messages(policies))):
                _install(server, variant)
                _install(server, [trivial[0]], {trivial[0]["metadata"]["name"]: ["Deny"]})
                _wait(api, probe, refused=True)
                time.sleep(2)  # the probe's policy came last; the informer delivers in order, with a margin
                phases[label] = _latencies(api, docs, n)
                _clear(server, api, probe)
            phases["none_again"] = _latencies(api, docs, n)
            result["phases"] = phases

            # 1. One policy per expression, Audit only; the probe policy shows when they are all in.
            profile, what = profile_policies(policies)
            _install(server, profile, {name: ["Audit"] for name in what})
            _install(server, [trivial[0]], {trivial[0]["metadata"]["name"]: ["Deny"]})
            _wait(api, probe, refused=True)
            deadline = time.monotonic() + 120
            conn = api.connection()
            while len(set(_metrics(server)) & set(what)) < len(what) and time.monotonic() < deadline:
                api.dry_run(conn, docs[0])
                time.sleep(0.5)
            before = _metrics(server)
            for _ in range(rounds):
                for doc in docs:
                    api.dry_run(conn, doc)
            conn.close()
            after = _metrics(server)
            rows = []
            for name, info in what.items():
                s1, c1 = after.get(name, (0.0, 0.0))
                s0, c0 = before.get(name, (0.0, 0.0))
                count = c1 - c0
                rows.append(
                    {
                        **info,
                        "name": name,
                        "evaluations": count,
                        "mean_us": (s1 - s0) / count * 1e6 if count else float("nan"),
                    }
                )
            result["expressions"] = sorted(rows, key=lambda r: -(r["mean_us"] if r["mean_us"] == r["mean_us"] else -1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def render(result: Mapping[str, Any], top: int) -> str:
    rows = result["expressions"]
    lines = [f"{result['documents']} documents x {result['rounds']} rounds; mean microseconds per request", ""]
    lines.append(f"{'us':>8} {'chars':>6}  {'kind':<10} {'policy':<14} expression")
    for row in rows[:top]:
        lines.append(f"{row['mean_us']:8.1f} {row['chars']:6d}  {row['kind']:<10} {row['policy']:<14} {row['label']}")
    lines.append("")
    for kind in ("variable", "validation", "message"):
        total = sum(r["mean_us"] for r in rows if r["kind"] == kind and r["mean_us"] == r["mean_us"])
        lines.append(f"sum of {kind}s: {total:.1f} us per request (each policy's own context)")
    lines.append("")
    for label, phase in result["phases"].items():
        lines.append(
            f"{label:<22} p50 {phase['p50_ms']:6.2f} ms  p99 {phase['p99_ms']:6.2f} ms  mean {phase['mean_ms']:6.2f} ms"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="passes over the samples for the per-expression profile")
    parser.add_argument("--requests", type=int, default=200, help="requests per latency phase")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--json", type=Path, help="write the whole result here")
    args = parser.parse_args()
    result = run(args.rounds, args.requests)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print(render(result, args.top))


if __name__ == "__main__":
    main()
