"""Entry point the Pulumi engine runs for this pack: the pack itself is in the installed pulumi-kuberay."""

from pulumi_kuberay.policy import run

run()
