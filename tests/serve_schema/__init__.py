"""Cross-check of the typed Serve config against Ray Serve's own schema (run with RAY_SERVE_PYTHON set)."""
