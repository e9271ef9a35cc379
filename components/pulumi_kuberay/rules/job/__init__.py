"""RayJob rules (they also run on a RayCronJob's jobTemplate), one module per concept."""
