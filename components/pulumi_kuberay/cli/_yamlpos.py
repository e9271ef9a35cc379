"""Line numbers for field paths inside YAML documents, so a finding can point at ``file:line``.

The documents are composed (not constructed) once more with PyYAML: nodes carry their start marks, and an
alias is visited once (a YAML bomb of aliases cannot make this walk explode).
"""

from __future__ import annotations

import yaml

PathLines = dict[str, int]


def _walk(node: yaml.Node, path: str, out: PathLines, seen: set[int], budget: list[int]) -> None:
    if id(node) in seen or budget[0] <= 0:
        return
    seen.add(id(node))
    budget[0] -= 1
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
            child = f"{path}.{key}" if path else str(key)
            out.setdefault(child, key_node.start_mark.line + 1)
            _walk(value_node, child, out, seen, budget)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, f"{path}[{index}]", out, seen, budget)


def document_path_lines(text: str, *, max_nodes: int = 200_000) -> list[PathLines]:
    """One ``{field path: 1-based line}`` map per YAML document of ``text`` (empty documents included)."""
    result: list[PathLines] = []
    for node in yaml.compose_all(text, Loader=yaml.SafeLoader):
        lines: PathLines = {}
        if node is not None:
            _walk(node, "", lines, set(), [max_nodes])
        result.append(lines)
    return result


def line_for(lines: PathLines, path: str, default: int) -> int:
    """The line of ``path``, or of its longest prefix that exists in the document."""
    probe = path
    while probe:
        if probe in lines:
            return lines[probe]
        cut = max(probe.rfind("."), probe.rfind("["))
        probe = probe[:cut] if cut > 0 else ""
    return lines.get("", default)
