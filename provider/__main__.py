"""The component provider's entry point (PulumiPlugin.yaml): the engine runs it with its own arguments."""

from pulumi_kuberay.provider import main

main()
