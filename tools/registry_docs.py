"""The Pulumi Registry pages of the component package, generated from its schema (scripts/release).

A package published to the Registry carries two Markdown pages beside its schema: ``_index.md`` (what the package
is, an example, its resources) and ``installation-configuration.md`` (how each language installs it). Both are
written here from the schema alone (``pulumi-resource-kuberay --schema``), so a resource, a description or a
language's package name changed in the code reaches the pages without an edit.

usage: python tools/registry_docs.py SCHEMA.json OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: How each language's SDK reaches a program (the schema's `language` section names the packages).
GO_IMPORT_DEFAULT = "github.com/pulumi-kuberay/pulumi-kuberay/sdk/go/kuberay"


def _front_matter(title: str, description: str) -> str:
    return f'---\ntitle: {json.dumps(title)}\nmeta_desc: {json.dumps(description)}\nlayout: package\n---\n'


def _first_sentence(text: str) -> str:
    line = " ".join(text.split())
    end = line.find(". ")
    return line if end < 0 else line[: end + 1]


def index_page(schema: dict[str, Any]) -> str:
    """``_index.md``: the package, a program in each tested language, the resources and their outputs."""
    name, display = schema["name"], schema.get("displayName", schema["name"])
    lines = [_front_matter(display, schema["description"]), schema["description"], ""]
    lines += [
        f"The `{name}` package is a Pulumi component package: its provider is the Python package `pulumi-kuberay`, so a program in any language gets the same validation, rule catalogue, rendered objects and outputs a Python program gets.",
        "",
        "## Example",
        "",
        "{{< chooser language \"typescript,python,go,yaml\" >}}",
        "{{% choosable language typescript %}}",
        "",
        "```typescript",
        f'import * as kuberay from "{_nodejs_package(schema)}";',
        "",
        'const cluster = new kuberay.RayCluster("shared", {',
        '    spec: { rayVersion: "2.52.0", image: "rayproject/ray:2.52.0", headGroupSpec: { cpu: 1, memory: "4Gi" } },',
        "});",
        "export const dashboard = cluster.dashboardUrl;",
        "```",
        "",
        "{{% /choosable %}}",
        "{{% choosable language python %}}",
        "",
        "```python",
        "import pulumi",
        "import pulumi_kuberay as kr",
        "",
        'cluster = kr.RayCluster("shared", kr.RayClusterSpec(ray_version="2.52.0", image="rayproject/ray:2.52.0",',
        '                        head_group_spec=kr.HeadGroupSpec(cpu=1, memory="4Gi")))',
        'pulumi.export("dashboard", cluster.dashboard_url)',
        "```",
        "",
        "{{% /choosable %}}",
        "{{% choosable language go %}}",
        "",
        "```go",
        f'import kuberay "{_go_import(schema)}"',
        "",
        'cluster, err := kuberay.NewRayCluster(ctx, "shared", &kuberay.RayClusterArgs{',
        "\tSpec: &kuberay.RayClusterSpecArgs{",
        '\t\tRayVersion: pulumi.String("2.52.0"), Image: pulumi.String("rayproject/ray:2.52.0"),',
        '\t\tHeadGroupSpec: &kuberay.HeadGroupSpecArgs{Cpu: pulumi.Any(1), Memory: pulumi.Any("4Gi")},',
        "\t},",
        "})",
        'ctx.Export("dashboard", cluster.DashboardUrl)',
        "```",
        "",
        "{{% /choosable %}}",
        "{{% choosable language yaml %}}",
        "",
        "```yaml",
        "resources:",
        "  shared:",
        f"    type: {name}:RayCluster",
        "    properties:",
        "      spec: {rayVersion: \"2.52.0\", image: rayproject/ray:2.52.0, headGroupSpec: {cpu: 1, memory: 4Gi}}",
        "outputs:",
        "  dashboard: ${shared.dashboardUrl}",
        "```",
        "",
        "{{% /choosable %}}",
        "{{< /chooser >}}",
        "",
        "## Resources",
        "",
        "| resource | description | outputs |",
        "|---|---|---|",
    ]
    for token, resource in sorted(schema["resources"].items()):
        kind = token.rsplit(":", 1)[-1]
        outputs = ", ".join(f"`{o}`" for o in sorted(resource.get("properties", {})))
        description = _first_sentence(resource.get("description", "")).replace("|", "\\|")
        lines.append(f"| `{kind}` (`{token}`) | {description} | {outputs} |")
    lines.append("")
    return "\n".join(lines)


def _nodejs_package(schema: dict[str, Any]) -> str:
    return str(schema.get("language", {}).get("nodejs", {}).get("packageName", f"@pulumi/{schema['name']}"))


def _go_import(schema: dict[str, Any]) -> str:
    return str(schema.get("language", {}).get("go", {}).get("importBasePath", GO_IMPORT_DEFAULT))


def installation_page(schema: dict[str, Any]) -> str:
    """``installation-configuration.md``: the provider, then each language's SDK."""
    name, display, version = schema["name"], schema.get("displayName", schema["name"]), schema["version"]
    go_import = _go_import(schema)
    go_module = go_import.rsplit("/", 1)[0]
    return "\n".join([
        _front_matter(f"{display} Installation & Configuration", f"How to install the {display} component package."),
        "## Installation",
        "",
        f"The provider of the `{name}` package is the Python package `pulumi-kuberay` (version {version}); its executable `pulumi-resource-kuberay` runs the components for every language. Install it first:",
        "",
        "```bash",
        f"pip install pulumi-kuberay=={version}",
        "```",
        "",
        "Then, in the program's directory, generate and link the SDK of the program's language (this also adds the package to Pulumi.yaml's `packages:`):",
        "",
        "```bash",
        'pulumi package add "$(command -v pulumi-resource-kuberay)"',
        "```",
        "",
        "Each language's SDK:",
        "",
        "* Python: `pulumi_kuberay` itself (the components, not a generated SDK): `import pulumi_kuberay as kr`.",
        f"* TypeScript/JavaScript: the generated `{_nodejs_package(schema)}` (npm, a `file:` dependency after `pulumi package add`).",
        f"* Go: the generated module `{go_module}` (a `replace` in go.mod after `pulumi package add`), imported as `{go_import}`.",
        f"* YAML: no SDK; name the provider in Pulumi.yaml (`packages: {{{name}: <path to pulumi-resource-kuberay>}}`) and use the types `{name}:RayCluster`, `{name}:RayJob`, ...",
        "* C#: `pulumi package gen-sdk` with `--language dotnet` generates it; it is not built or tested by the project.",
        "* Java: no SDK (the Java code generator is not available to the project's build).",
        "",
        "## Configuration",
        "",
        f"The `{name}` provider takes no configuration. Each component takes a Kubernetes provider through the `providers` resource option (a kubeconfig, a context, or `renderYamlToDirectory` to render manifests instead of applying them).",
        "",
    ])


def write_pages(schema: dict[str, Any], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    pages = {"_index.md": index_page(schema), "installation-configuration.md": installation_page(schema)}
    written = []
    for file_name, text in pages.items():
        path = out_dir / file_name
        path.write_text(text)
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tools/registry_docs.py SCHEMA.json OUT_DIR", file=sys.stderr)
        return 2
    schema = json.loads(Path(argv[0]).read_text())
    for path in write_pages(schema, Path(argv[1])):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
