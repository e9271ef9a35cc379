"""RayService rules: the operator's spec checks (``spec``, ``upgrade``) and the Ray Serve config (``serve_*``).

KubeRay does not look inside serveConfigV2; it PUTs it to the dashboard. Mistakes then show up as a
``FailedToUpdateServeApplications`` event retried forever (HTTP 400), as an application stuck in
``DEPLOY_FAILED``/``DEPLOYING`` (which blocks the whole RayService: no serve Service, no upgrade switch-over),
or as 404s. What Ray Serve rejects or fails to deploy is critical; silently ignored or 404-prone
configurations are high/medium. Paths point into the parsed document:
``spec.serveConfigV2.applications[1].route_prefix``.
"""
