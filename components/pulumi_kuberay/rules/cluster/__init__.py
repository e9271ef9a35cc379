"""RayCluster rules, one module per concept (they also run on the cluster specs embedded in the other kinds)."""
