"""RayService rules: the operator's spec checks, incremental upgrade, and the Ray Serve config."""
