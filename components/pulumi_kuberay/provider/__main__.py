"""``python -m pulumi_kuberay.provider``: the component provider (``--schema`` prints the package schema)."""

from pulumi_kuberay.provider import main

main()
