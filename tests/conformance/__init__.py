"""Conformance tests: documents judged against the upstream KubeRay CRD schemas and samples."""
