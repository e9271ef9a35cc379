"""RayCluster rules, one module per concept.

Each rule runs over every embedded RayClusterSpec (RayCluster ``spec``, RayJob ``spec.rayClusterSpec``,
RayService ``spec.rayClusterConfig``, RayCronJob ``spec.jobTemplate.rayClusterSpec``) with the parent's
annotations, as the operator does (``kuberay.paths.cluster_specs``). Unknown (not yet computed) values are never judged.
"""
