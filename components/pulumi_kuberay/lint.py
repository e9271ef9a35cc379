"""``python -m pulumi_kuberay.lint``: the same command as ``kuberay-lint`` (see :mod:`pulumi_kuberay.cli.lint`)."""

from pulumi_kuberay.cli.lint import main

if __name__ == "__main__":
    raise SystemExit(main())
