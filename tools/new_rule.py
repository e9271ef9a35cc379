"""``scripts/new-rule MODULE ID``: write a new rule's declaration, with both examples, into its rule module.

MODULE is a rule module of ``components/pulumi_kuberay/rules``, named by its concern (``groups``, ``job_deletion``,
``practice``; the rule modules are one flat list, no kind folders); a module that does not exist yet is created (the
catalogue finds it: no registration). The declaration is a working skeleton over a placeholder field with ``TODO``
where the rule's prose and logic go; ``tests/rules/test_catalogue.py`` fails while a ``TODO`` is left. ``--kind``
picks the skeleton's subject (a RayJob spec, a RayService, a RayCronJob, else every embedded RayClusterSpec); by
default the module's name says it (``job_*``, ``service_*`` / ``serve_*``, ``cronjob*``).

``--dry-run`` prints the files adding the rule touches (CONTRIBUTING.md's "Adding a rule" shows the same list, and
``tests/test_layout.py`` holds the two equal) and writes nothing. In the spirit of ruff's ``scripts/add_rule.py``:
adding a rule touches its module by hand; the rest is regenerated.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "components" / "pulumi_kuberay" / "rules"
_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")
_ROOM = re.compile(r"^[a-z][a-z0-9_]*$")
_KIND_PREFIXES = (("job", "job"), ("service", "service"), ("serve", "service"), ("cronjob", "cronjob"))
ALL_KINDS = '("RayCluster", "RayJob", "RayService", "RayCronJob")'



@dataclass(frozen=True)
class Template:
    """A rule skeleton: ``{fn}`` is the check's name and ``{field}`` the placeholder field it looks at."""

    kinds: str
    check: str
    compliant: str
    violating: str
    path: str
    imports: dict[str, list[str]] = field(default_factory=dict)


#: Per subject (--kind, or what the module's name says): the kinds, the example builder and the check's walk.
_DOCUMENT = {
    "job": Template(
        kinds='("RayJob", "RayCronJob")',
        imports={"_examples": ["example_job"], "_manifest_readers": ["per_job_spec"]},
        check='''@per_job_spec
def {fn}(spec: dict[str, Any], path: str, ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks, and the KubeRay function it mirrors (e.g. ``ValidateRayJobSpec``)."""
    if spec.get("{field}") is True:  # TODO: the real condition (as_* readers; skip unknown values)
        yield Violation("TODO: what is wrong and what happens then, on one line", f"{{path}}.{field}")
''',
        compliant="example_job()",
        violating="example_job({field}=True)",
        path="spec.{field}",
    ),
    "service": Template(
        kinds='("RayService",)',
        imports={"_examples": ["example_service"], "pulumi_kuberay.kuberay.paths": ["as_dict"]},
        check='''def {fn}(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks, and the KubeRay function it mirrors (e.g. ``ValidateRayServiceSpec``)."""
    spec = as_dict(doc.get("spec"))
    if spec.get("{field}") is True:  # TODO: the real condition (as_* readers; skip unknown values)
        yield Violation("TODO: what is wrong and what happens then, on one line", "spec.{field}")
''',
        compliant="example_service()",
        violating="example_service({field}=True)",
        path="spec.{field}",
    ),
    "cronjob": Template(
        kinds='("RayCronJob",)',
        imports={"_examples": ["example_cronjob"], "pulumi_kuberay.kuberay.paths": ["as_dict"]},
        check='''def {fn}(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks, and the KubeRay function it mirrors (e.g. ``ValidateRayCronJobSpec``)."""
    spec = as_dict(doc.get("spec"))
    if spec.get("{field}") is True:  # TODO: the real condition (as_* readers; skip unknown values)
        yield Violation("TODO: what is wrong and what happens then, on one line", "spec.{field}")
''',
        compliant="example_cronjob()",
        violating="example_cronjob({field}=True)",
        path="spec.{field}",
    ),
    "cluster": Template(
        kinds=ALL_KINDS,
        imports={"_examples": ["example", "spec_of"], "pulumi_kuberay.kuberay.paths": ["cluster_specs"]},
        check='''def {fn}(doc: dict[str, Any], ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks, and the KubeRay function it mirrors (e.g. ``ValidateRayClusterSpec``)."""
    for ref in cluster_specs(doc):  # every RayClusterSpec: a RayCluster's or the one a RayJob/RayService embeds
        if ref.spec.get("{field}") is True:  # TODO: the real condition; as_* readers, skip unknown values
            yield Violation("TODO: what is wrong and what happens then, on one line", ref.path("{field}"))
''',
        compliant="example()",
        violating="example(lambda d: spec_of(d).update({field}=True))",
        path="spec.{field}",
    ),
}

_STACK = Template(
    kinds='("RayCluster", "RayJob")',
    imports={"_examples": ["example", "example_job"], "pulumi_kuberay.kuberay.paths": ["as_dict"]},
    check='''def {fn}(docs: Sequence[dict[str, Any]], ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks across the objects of a stack (or the files given to kuberay-lint)."""
    for index, doc in enumerate(docs):
        if as_dict(doc.get("spec")).get("{field}") is True:  # TODO: the real condition across the documents
            yield Violation("TODO: what is wrong across {{set}}, on one line", "spec.{field}", index=index)
''',
    compliant="(example(), example_job())",
    violating="(example(), example_job({field}=True))",
    path="spec.{field}",
)

_SETUP = Template(
    kinds="()",
    imports={"pulumi_kuberay.operator": ["OperatorSetup"]},
    check='''def {fn}(setup: OperatorSetup, ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks on the operator's setup (an OperatorSetup: version, gates, replicas...)."""
    if setup.source == "TODO":  # TODO: the real condition on the setup
        yield Violation("TODO: what is wrong with the operator, on one line", "{field}")
''',
    compliant="OperatorSetup()",
    violating='OperatorSetup(source="TODO")',
    path="{field}",
)

_CHANGE = Template(
    kinds='("RayCluster",)',
    imports={"_engine": ["ChangeSubject"], "_examples": ["example", "spec_of"], "pulumi_kuberay.kuberay.paths": ["as_dict"]},
    check='''def {fn}(change: ChangeSubject, ctx: Context) -> Iterator[Violation]:
    """TODO: what the rule checks on a change (change.old -> change.new; change.plan: what KubeRay will do)."""
    spec = as_dict(change.new.get("spec"))
    if change.plan.action == "none" and spec.get("{field}") is True:  # TODO: the real condition
        yield Violation("TODO: what this change does not do, on one line", "spec.{field}")
''',
    compliant="(example(), example())",
    violating="(example(), example(lambda d: spec_of(d).update({field}=True)))",
    path="spec.{field}",
)


def _camel(rule_id: str) -> str:
    """A placeholder field name from the id (``worker-foo-bar`` -> ``todoWorkerFooBar``)."""
    return "todo" + "".join(part.capitalize() for part in rule_id.split("-"))


def kind_of(module: str) -> str:
    """The skeleton a module's name implies: ``job_deletion`` -> job, ``serve_apps`` -> service, else cluster."""
    return next((kind for prefix, kind in _KIND_PREFIXES if module.startswith(prefix)), "cluster")


def declaration(kind: str, rule_id: str, scope: str) -> tuple[dict[str, list[str]], str]:
    """The imports (reader module -> names) and the source of the check and its declaration."""
    if scope == "stack":
        template = _STACK
    elif scope == "setup":
        template = _SETUP
    elif scope == "change":
        template = _CHANGE
    else:
        template = _DOCUMENT[kind]
    field = _camel(rule_id)
    fn = "_check_" + rule_id.replace("-", "_")
    imports: dict[str, list[str]] = {**template.imports}
    imports["_engine"] = ["Context", "Violation", "declare", *template.imports.get("_engine", [])]
    # The fixed example (tests/rules/test_fixes_clear_findings.py holds every rule's fix to it): the placeholder
    # field removed; a stack rule's paths start at the document; a setup rule's fix is the compliant subject.
    if scope == "setup":
        fixed = template.compliant
    else:
        prefix = "[1]." if scope in ("stack", "change") else ""  # a change's paths are on the new manifest
        fixed = f'patch({{"{prefix}{template.path.format(field=field)}": REMOVE}})  # TODO: the fix the text says'
        imports["_fixed"] = ["REMOVE", "patch"]
    check = template.check.format(fn=fn, field=field)
    scope_line = "" if scope == "document" else f'    scope="{scope}",\n'
    kinds_line = "" if scope == "setup" else f"    kinds={template.kinds},\n"
    body = f'''

{check}

declare(
    id="{rule_id}",
{scope_line}    title="TODO: the rule in a few words",
    severity="high",  # critical: the operator or API server rejects it, or the workload breaks
    category="correctness",  # correctness | reliability | security | cost | hygiene
{kinds_line}    rationale="TODO: why it matters, in one or two sentences.",
    fix="TODO: how to fix it.",
    check={fn},
    compliant={template.compliant.format(field=field)},
    violating={template.violating.format(field=field)},
    violating_path="{template.path.format(field=field)}",
    fixed={fixed},
)
'''
    return imports, body


def _import_lines(imports: dict[str, list[str]], depth: int) -> list[str]:
    dots = "." * depth
    typing = ["from collections.abc import Iterator, Sequence", "from typing import Any"]
    return typing + [
        f"from {'' if module.startswith('pulumi_kuberay.') else dots}{module} import {', '.join(sorted(set(names)))}"
        for module, names in imports.items()
    ]


def _end_of_imports(source: str) -> int:
    """The line number (1-based, inclusive) of the last statement of the module's leading import block."""
    end = 0
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            end = node.end_lineno or node.lineno
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # the docstring
            break
    return end


def module_path(module: str) -> Path:
    return RULES / f"{module.removesuffix('.py')}.py"


def touched(module: str) -> list[tuple[str, str, str]]:
    """What adding a rule to ``module`` touches: (how, file, why), by hand first, then what is regenerated."""
    path = module_path(module).relative_to(REPO).as_posix()
    return [
        ("by hand", path, "created" if not module_path(module).exists() else "the check and its declaration"),
        ("generated", "docs/rules.md", "scripts/gen-rule-docs"),
        ("generated", "docs/admission.md", "scripts/gen-admission-docs"),
        *[("generated", f"stacks/policy.{env}.json", "scripts/gen-policy-config") for env in ("dev", "staging", "prod")],
        ("if rows=", "docs/operator-rules.md", "the row's last column: the oracle minors that judged it"),
        ("if no cel=", "components/pulumi_kuberay/admission.py", "REASONS, unless its scope, gate or context gives one"),
    ]


def write(module: str, rule_id: str, scope: str, kind: str) -> Path:
    module = module.removesuffix(".py")
    path = module_path(module)
    imports, body = declaration(kind, rule_id, scope)
    lines = _import_lines(imports, depth=1)
    if path.exists():
        source = path.read_text()
        if f'id="{rule_id}"' in source:
            raise SystemExit(f"new-rule: {path.relative_to(REPO)} already declares {rule_id}")
        # after the module's imports (ruff's isort then merges the duplicates into them)
        end = _end_of_imports(source)
        head, rest = source.splitlines(keepends=True)[:end], source.splitlines(keepends=True)[end:]
        path.write_text("".join(head) + "\n".join(lines) + "\n" + "".join(rest).rstrip("\n") + "\n" + body)
    else:
        docstring = f'"""TODO: the concern these rules check (rules/{module}.py)."""'
        path.write_text(docstring + "\n\nfrom __future__ import annotations\n\n" + "\n".join(lines) + "\n" + body)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/new-rule", description=__doc__.split("\n\n")[0])
    room_help = "the rule module of rules/, named by its concern: groups, job_deletion, practice..."
    parser.add_argument("room", metavar="MODULE", help=room_help)
    parser.add_argument("rule_id", metavar="ID", help="the new rule's id: lower-case words joined by dashes")
    parser.add_argument("--scope", choices=("document", "stack", "setup", "change"), default="document")
    kind_help = "the skeleton's subject (default: from the module's name: job_*, service_*/serve_*, cronjob*)"
    parser.add_argument("--kind", choices=("cluster", "job", "service", "cronjob"), help=kind_help)
    parser.add_argument("--dry-run", action="store_true", help="print the files adding the rule touches; write none")
    args = parser.parse_args(argv)
    rule_id = args.rule_id
    if not _ID.match(rule_id) or len(rule_id) > 63:
        problem = f"new-rule: {rule_id!r} is not a rule id (lower-case words joined by dashes, 63 characters at most)"
        print(problem, file=sys.stderr)
        return 2
    if not _ROOM.match(args.room.removesuffix(".py")):
        problem = f"new-rule: {args.room!r} is not a rule module: one lower-case name of rules/, no folder, no leading '_' (e.g. groups, job_deletion, practice)"
        print(problem, file=sys.stderr)
        return 2
    module = args.room.removesuffix(".py")
    if args.dry_run:
        for how, name, why in touched(module):
            print(f"{how:<11} {name:<42} {why}")
        return 0
    path = write(module, args.rule_id, args.scope, args.kind or kind_of(module))
    ruff = REPO / ".venv" / "bin" / "ruff"
    if ruff.exists():  # merge the added imports into the module's own (isort), drop the unused ones
        subprocess.run([str(ruff), "check", "--fix", "--select", "I,F401,F811", "--quiet", str(path)], check=False)
    print(f"new-rule: wrote {args.rule_id} ({args.scope} rule) with both examples to {path.relative_to(REPO)}")
    print("next: replace every TODO (prose, the check, the examples, violating_path), then")
    print("  scripts/gen-rule-docs && scripts/gen-admission-docs && scripts/gen-policy-config")
    print("  .venv/bin/python -m pytest -q tests/rules tests/test_three_shells.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
