"""pod_runner: the Pods bound to our nodes run for real, as processes, for ``scripts/local-cluster up --run-pods``.

Test infrastructure (the ``realray`` tier), standard library only, run as root by scripts/local-cluster:

* ``kube``: a small client of the API server (the admin certificate of the local control plane).
* ``netns``: one network namespace per Pod with its own Pod IP (a veth to the bridge ``prbr0``), the
  namespace's ``/etc/netns/<name>/resolv.conf`` pointing at our DNS server.
* ``dns``: ``<svc>.<ns>.svc.cluster.local`` answered with the Pod IPs of the Service's endpoints (a narrower
  equivalent of kube-proxy + CoreDNS: no ClusterIP, the Service's port must equal its targetPort).
* ``images``: the image tag chooses the Ray venv (``rayproject/ray:2.53.0-py311-cpu`` -> ray 2.53.0).
* ``pod``: init containers, then the containers as processes in the Pod's namespaces, probes as the kubelet
  runs them, restarts by restartPolicy, the Pod's status, graceful deletion.
* ``kubelet``: the node's kubelet endpoint over HTTPS for ``kubectl logs`` (``/containerLogs/...``).
* ``__main__``: the node objects (kept Ready: Lease and conditions) and the loop that starts and ends Pods.
"""
