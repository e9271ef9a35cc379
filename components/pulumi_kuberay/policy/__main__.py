"""``python -m pulumi_kuberay.policy`` and ``kuberay-policy-pack``: where the pack is, or a pack directory of your own.

Usage::

    pulumi preview --policy-pack "$(python -m pulumi_kuberay.policy --path)"
    kuberay-policy-pack ./kuberay-policies [--virtualenv venv] [--policy-configs] [--force]

Exit codes: 0 done; 2 bad arguments or a directory that already holds other pack files (without ``--force``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pulumi_kuberay.policy._layout import PACK_NAME, pack_path, write_pack

PROG = "kuberay-policy-pack"
#: The one line printed when no argument is given (and the usage of --help and of a bad flag).
USAGE = "%(prog)s DIR [--virtualenv VENV] [--policy-configs] [--force] | --path  (--help for more)"


def _parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        usage=USAGE,
        description=(
            f"Write a ready CrossGuard pack directory ({PACK_NAME}: PulumiPolicy.yaml, __main__.py, requirements.txt pinned to the installed pulumi-kuberay), or print the pack directory shipped in the package."
        ),
        epilog='example: pulumi preview --policy-pack "$(python -m pulumi_kuberay.policy --path)"',
    )
    p.add_argument("directory", nargs="?", metavar="DIR", help="pack directory to write (created if missing)")
    p.add_argument("--path", action="store_true", help="print the pack directory inside the installed package")
    p.add_argument(
        "--virtualenv",
        metavar="VENV",
        help="add Pulumi's toolchain: pip / virtualenv: VENV options (then run `pulumi install` in DIR)",
    )
    p.add_argument(
        "--policy-configs",
        action="store_true",
        help="also write policy.dev.json, policy.staging.json, policy.prod.json (levels per environment) into DIR",
    )
    p.add_argument("--force", action="store_true", help="replace existing pack files in DIR")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    return p


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    parser = _parser(prog)
    args = parser.parse_args(argv)
    if args.version:
        print(f"{prog} {_version()}")
        return 0
    if not (args.path or args.directory):
        parser.print_usage(sys.stderr)  # one line: USAGE
        return 2
    if args.path == bool(args.directory):
        parser.error("give either DIR (write a pack directory) or --path (print the installed one)")
    if importlib.util.find_spec("pulumi_policy") is None:
        print(
            f"{prog}: warning: pulumi-policy is not installed here; the pack needs it in the Python environment the engine will use (pip install 'pulumi-policy>=1.21.0,<2', or the package with its policy extra)",
            file=sys.stderr,
        )
    if args.path:
        print(pack_path())
        return 0
    try:
        written = write_pack(args.directory, virtualenv=args.virtualenv, overwrite=args.force)
        if args.policy_configs:
            written += _write_policy_configs(Path(args.directory))
    except (FileExistsError, OSError, ImportError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    print(f"{prog}: wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
    config = " --policy-pack-config " + str(Path(args.directory) / "policy.prod.json") if args.policy_configs else ""
    print(f"run it with: pulumi preview --policy-pack {args.directory}{config}", file=sys.stderr)
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pulumi-kuberay")
    except PackageNotFoundError:
        return "0+unknown"


def _write_policy_configs(directory: Path) -> list[Path]:
    """Enforcement levels per environment: dev advisory; staging mandatory for critical; prod for high+."""
    from pulumi_kuberay.policy._pack import policy_config  # needs pulumi-policy (the `policy` extra)

    written = []
    for environment in ("dev", "staging", "prod"):
        path = directory / f"policy.{environment}.json"
        path.write_text(json.dumps(policy_config(environment), indent=2) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m pulumi_kuberay.policy"))
