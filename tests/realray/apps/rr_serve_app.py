"""The Serve applications of the realray tier (on the Pods' PYTHONPATH; runs in the Ray venv, not checked by
the project's mypy). Each answer names the RayCluster that served it (KubeRay's RAY_CLUSTER_NAME), so a client
sees when a RayService's traffic moves to a new cluster."""

import os

from ray import serve
from starlette.requests import Request


def _cluster() -> str:
    return os.environ.get("RAY_CLUSTER_NAME", "?")


@serve.deployment
class Greeter:
    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    async def __call__(self, request: Request) -> str:
        return f"{self.greeting} from {_cluster()}"


@serve.deployment
class Echo:
    async def __call__(self, request: Request) -> str:
        return f"echo {request.query_params.get('say', '')} from {_cluster()}"


def greeter(args: dict[str, str]) -> serve.Application:
    return Greeter.bind(args.get("greeting", "hello"))


echo = Echo.bind()
