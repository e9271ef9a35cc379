"""Write the change plan's Go type table (``components/pulumi_kuberay/plan/gotypes/v<major>.<minor>.json``).

Input: the operator's Go types as ``kuberay-oracle plan types`` prints them (reflection over
``rayv1.RayClusterSpec``: per struct its fields in Go order, JSON name, Go type, tag options) and the operator's
RayCluster CRD. The CRD schema is walked beside the Go types: a Go field the schema lacks is marked ``p`` (the API
server prunes it), a schema default is attached to its field. The same Go type must read the same schema at every
path it appears (checked: the hash emulation annotates types, not paths).

usage: python tools/gen_plan_types.py --types TYPES.json --crd RAYCLUSTER_CRD.yaml --out FILE [--version vX.Y.Z]
Run by scripts/gen-plan-types; tests/oracle/test_plan_hash.py checks the committed table against the oracle.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml


def annotate(types: dict[str, Any], crd: dict[str, Any]) -> dict[str, Any]:
    """``types`` (the oracle's dump) with each struct field's ``p`` flag and CRD default filled in."""
    versions = crd["spec"]["versions"]
    schema = next(v for v in versions if v.get("storage"))["schema"]["openAPIV3Schema"]
    spec_schema = schema["properties"]["spec"]
    seen: dict[tuple[str, str], tuple[bool, str | None, str]] = {}
    structs = types["types"]

    def walk(ref: str, node: dict[str, Any], path: str) -> None:
        if ref.startswith("*"):
            walk(ref[1:], node, path)
            return
        if ref.startswith("[]"):
            walk(ref[2:], node.get("items") or {}, path + "[]")
            return
        if ref.startswith("map"):
            extra = node.get("additionalProperties")
            walk(ref[3:], extra if isinstance(extra, dict) else {}, path + "{}")
            return
        entry = structs.get(ref)
        if not entry or "fields" not in entry:
            return
        props = node.get("properties") or {}
        for field in entry["fields"]:
            name, field_ref = field[0], field[1]
            sub = props.get(name)
            default = json.dumps(sub["default"], sort_keys=True) if sub is not None and "default" in sub else None
            signature = (sub is not None, default, path)
            before = seen.get((ref, name))
            if before is not None and before[:2] != signature[:2]:
                raise SystemExit(
                    f"gen_plan_types: {ref}.{name} reads the CRD differently at {before[2]} and {path}: the hash emulation needs per-path handling"
                )
            seen[(ref, name)] = signature
            if sub is not None and before is None:
                walk(field_ref, sub, f"{path}.{name}")

    walk(types["root"], spec_schema, "spec")
    out: dict[str, Any] = {}
    for key in sorted(structs):
        entry = structs[key]
        if "fields" not in entry:
            out[key] = entry
            continue
        fields = []
        for name, ref, flags in entry["fields"]:
            known = seen.get((key, name))
            # a field of a type reached only through pruned fields is never decoded: no mark needed
            pruned = known is not None and not known[0]
            row: list[Any] = [name, ref, flags + ("p" if pruned else "")]
            if known is not None and known[1] is not None:
                row.append(json.loads(known[1]))
            fields.append(row)
        out[key] = {"fields": fields}
    return {"version": types["version"], "root": types["root"], "types": out}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--types", required=True, help="the oracle's `plan types` output (JSON), or - for stdin")
    parser.add_argument("--crd", required=True, type=Path, help="the operator's ray.io_rayclusters.yaml")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--version", help="operator version, when the dump cannot tell (a module built by replace)")
    args = parser.parse_args(argv)
    raw = sys.stdin.read() if args.types == "-" else Path(args.types).read_text()
    types = json.loads(raw)
    if args.version:
        types["version"] = args.version
    if not str(types.get("version", "")).startswith("v"):
        raise SystemExit(f"gen_plan_types: operator version unknown ({types.get('version')!r}): pass --version")
    table = annotate(types, yaml.safe_load(args.crd.read_text()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(table, separators=(",", ":"), sort_keys=False)
    args.out.write_text(text.replace('},"', '},\n"') + "\n")
    print(f"wrote {args.out} ({len(table['types'])} Go types, operator {table['version']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
