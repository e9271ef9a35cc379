"""The typed model of the ray.io/v1 custom resources (pure pydantic, never imports pulumi)."""
