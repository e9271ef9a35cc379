"""Every status a Ray object goes through, from a watch (``kubectl get -w``): no poll misses a short state."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass, field

from realray.conftest import RealRay


@dataclass
class StatusWatch:
    """``kubectl get <kind> --field-selector metadata.name=<name> -w`` printing ``jsonpath``; ``states`` are the
    distinct consecutive lines, with the seconds since the watch began. A watch of the list, not of the object: it
    may start before the object exists (``pulumi up`` creates it later). Stops at ``stop()`` or after ``limit``
    seconds, whichever is first."""

    rr: RealRay
    kind: str
    name: str
    namespace: str
    jsonpath: str
    limit: float = 900
    states: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [str(self.rr.cluster.kubectl_path), f"--kubeconfig={self.rr.cluster.kubeconfig}", "get", self.kind,
             f"--field-selector=metadata.name={self.name}", "-n", self.namespace, "-w", "-o",
             f"jsonpath={self.jsonpath}{{\"\\n\"}}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        self.timer = threading.Timer(self.limit, self.stop)
        self.timer.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            state = line.strip()
            if state and (not self.states or self.states[-1][1] != state):
                self.states.append((round(time.monotonic() - self.started, 1), state))

    def stop(self) -> list[tuple[float, str]]:
        self.timer.cancel()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.thread.join(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return self.states

    def values(self) -> list[str]:
        return [s for _, s in self.states]


def in_order(seen: list[str], wanted: list[str]) -> bool:
    """``wanted`` occurs in ``seen`` as a subsequence."""
    it = iter(seen)
    return all(any(w == s for s in it) for w in wanted)
