"""Reading Kubernetes documents (YAML or JSON) from files and stdin, for the command-line tools.

One entry point, :func:`read_documents`, turns a list of sources (paths, ``-`` for stdin) into
:class:`Document` objects, each knowing where it came from (source and 1-based start line). It handles
multi-document YAML, JSON (one value or several concatenated, as ``kubectl get -o json`` in a loop
prints) and flattens ``kind: List`` / ``kind: <Kind>List`` (filling in each item's ``kind`` and
``apiVersion`` when a typed list from the API leaves them out).

Input is untrusted: it is read with bounded size, must be UTF-8, is loaded with PyYAML's safe loader (no
Python tags), YAML timestamps stay strings (as JSON from the API server has them), and alias-heavy documents
("billion laughs"), deep nesting and oversized input are refused. Every problem becomes an :class:`InputError`
with a one-line message naming the source and, when known, the line.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

__all__ = [
    "DEFAULT_LIMITS",
    "Document",
    "InputError",
    "Limits",
    "Source",
    "expand_lists",
    "expand_paths",
    "parse_documents",
    "read_documents",
    "read_source",
]

STDIN: Final = "-"


@dataclass(frozen=True)
class Limits:
    """Bounds on untrusted input."""

    max_bytes: int = 64 * 1024 * 1024
    #: nodes after expanding YAML aliases (a "billion laughs" document is tiny on disk, huge expanded)
    max_nodes: int = 2_000_000
    max_depth: int = 200


DEFAULT_LIMITS: Final = Limits()


class InputError(ValueError):
    """Input that cannot be read as documents. ``str(error)`` is one line: ``source[:line]: problem``."""

    def __init__(self, source: str, problem: str, line: int | None = None) -> None:
        self.source = source
        self.line = line
        self.problem = " ".join(problem.split())
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {self.problem}")


@dataclass(frozen=True)
class Document:
    """One parsed document (or one item of a ``kind: List``)."""

    source: str  # path as given, or "<stdin>"
    line: int  # 1-based line where the document (or list item) starts
    index: int  # position of the document in its source (0-based)
    data: Any
    item: int | None = None  # position inside the List it came from, if any
    #: start lines of the ``items`` entries of a List document (None when unknown)
    item_lines: tuple[int, ...] | None = None
    #: ``{field path: 1-based line}`` (``spec.workerGroupSpecs[0].replicas``; "" is the document itself),
    #: filled only when asked for (``with_path_lines``); a List item's paths are relative to the item
    path_lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)

    @property
    def where(self) -> str:
        """``source:line``."""
        return f"{self.source}:{self.line}"

    @property
    def is_list(self) -> bool:
        """A ``kind: List`` / ``kind: <Kind>List`` document with an ``items`` array."""
        return _is_list(self.data)


@dataclass(frozen=True)
class Source:
    """Everything read from one source (a file, or stdin as ``<stdin>``)."""

    name: str
    documents: tuple[Document, ...]


# --- YAML loading -------------------------------------------------------------------------------------


# libyaml's parser when PyYAML has it (several times faster); only its event stream is used: the nodes are
# composed below without recursion, so deep nesting is refused instead of overflowing a stack.
_LoaderBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _SafeLoader(_LoaderBase):  # type: ignore[valid-type,misc]
    """Safe loader (no Python tags) that leaves timestamps as strings (like JSON from the API server)."""


_SafeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


# C901: one branch per YAML event kind of the composer
def _compose(loader: Any, source: str, limits: Limits) -> Iterator[Node]:  # noqa: C901
    """Compose the documents of ``loader``'s event stream into node trees, iteratively, bounding the depth."""
    root: Node | None = None
    anchors: dict[str, Node] = {}
    stack: list[list[Any]] = []  # [collection node, pending mapping key or None]

    def attach(node: Node) -> None:
        nonlocal root
        if not stack:
            root = node
            return
        frame = stack[-1]
        parent = frame[0]
        if isinstance(parent, SequenceNode):
            parent.value.append(node)
        elif frame[1] is None:
            frame[1] = node
        else:
            parent.value.append((frame[1], node))
            frame[1] = None

    def anchor(event: Any, node: Node) -> None:
        if event.anchor is not None:
            anchors[event.anchor] = node

    while loader.check_event():
        event = loader.get_event()
        start: Any = event.start_mark  # yaml.Mark, or libyaml's own Mark type
        if isinstance(event, yaml.DocumentStartEvent):
            root, anchors = None, {}
        elif isinstance(event, yaml.DocumentEndEvent):
            if root is not None:
                yield root
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                raise InputError(source, f"undefined YAML alias *{event.anchor}", start.line + 1)
            attach(anchors[event.anchor])
        elif isinstance(event, yaml.ScalarEvent):
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(ScalarNode, event.value, event.implicit)
            end: Any = event.end_mark
            scalar = ScalarNode(tag, event.value, start, end, style=event.style)
            anchor(event, scalar)
            attach(scalar)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            if len(stack) >= limits.max_depth:
                raise InputError(source, f"nested deeper than {limits.max_depth} levels", start.line + 1)
            is_seq = isinstance(event, yaml.SequenceStartEvent)
            kind = SequenceNode if is_seq else MappingNode
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(kind, None, event.implicit)
            collection = kind(tag, [], start, None, flow_style=event.flow_style)
            anchor(event, collection)
            attach(collection)
            stack.append([collection, None])
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            stack.pop()[0].end_mark = event.end_mark


def _check_node(root: Node, source: str, limits: Limits) -> None:
    """Refuse alias bombs, cycles and deep nesting before constructing Python objects."""
    sizes: dict[int, int] = {}
    # Iterative post-order walk; a node reached again while on the stack is a cycle.
    on_stack: set[int] = set()
    stack: list[tuple[Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_stack.discard(key)
            children = _children(node)
            total = 1 + sum(sizes[id(child)] for child in children)
            sizes[key] = total
            if total > limits.max_nodes:
                raise InputError(
                    source,
                    f"document expands to more than {limits.max_nodes} nodes (YAML alias bomb?)",
                    node.start_mark.line + 1,
                )
            continue
        if key in sizes:
            continue
        if key in on_stack:
            raise InputError(source, "recursive YAML alias", node.start_mark.line + 1)
        if depth > limits.max_depth:
            raise InputError(source, f"nested deeper than {limits.max_depth} levels", node.start_mark.line + 1)
        on_stack.add(key)
        stack.append((node, depth, True))
        for child in _children(node):
            if id(child) not in sizes:
                stack.append((child, depth + 1, False))


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _list_item_lines(node: Node) -> list[int] | None:
    """Start lines of ``items`` entries when ``node`` is a mapping with an ``items`` sequence."""
    if not isinstance(node, MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == "items" and isinstance(value, SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return None


class _Parsed(NamedTuple):
    line: int
    data: Any
    item_lines: list[int] | None
    path_lines: dict[str, int]


def _path_lines(root: Node, limits: Limits, text: _TextLines | None = None) -> dict[str, int]:
    """``{field path: line}`` of a composed document, each node visited once (aliases not re-walked).

    With ``text`` (the source the document was composed from), the YAML inside a block scalar (``serveConfigV2:
    |``) is located too: ``spec.serveConfigV2.applications[0].route_prefix`` is the line of that key inside the
    block (see :func:`_block_lines`)."""
    out: dict[str, int] = {"": root.start_mark.line + 1}
    seen: set[int] = set()
    stack: list[tuple[Node, str]] = [(root, "")]
    blocks: list[tuple[str, ScalarNode]] = []
    budget = limits.max_nodes
    while stack and budget > 0:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        budget -= 1
        if isinstance(node, ScalarNode) and node.style in _BLOCK_STYLES and text is not None:
            blocks.append((path, node))
        if isinstance(node, MappingNode):
            for key_node, value_node in reversed(node.value):
                key = key_node.value if isinstance(key_node, ScalarNode) else "?"
                child = f"{path}.{key}" if path else str(key)
                out.setdefault(child, key_node.start_mark.line + 1)
                stack.append((value_node, child))
        elif isinstance(node, SequenceNode):
            for index, item in reversed(list(enumerate(node.value))):
                child = f"{path}[{index}]"
                out.setdefault(child, item.start_mark.line + 1)
                stack.append((item, child))
    for path, node in blocks:
        assert text is not None
        for inner, line in _block_lines(node, text, limits).items():
            out.setdefault(f"{path}{inner}" if inner.startswith("[") else f"{path}.{inner}", line)
    return out


#: Literal and folded block scalars: the only scalar styles whose text keeps the source's line structure.
_BLOCK_STYLES: Final = ("|", ">")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: Line breaks of YAML 1.1 that are not ``\n``/``\r``: with one of them in the text, our line count would not be
#: the parser's, so blocks are not located (their key's line is used).
_OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")
#: A block's text is looked at only when it may hold YAML collections (a key or a list item).
_MAY_BE_YAML = re.compile(r"(?m)^\s*(?:- |-$|[^\s#][^\n]*:(?: |$))")


class _TextLines:
    """The source's lines, split once and only when a block scalar asks for them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None

    @property
    def lines(self) -> list[str] | None:
        if self._lines is None:
            self._lines = [] if _OTHER_BREAKS.search(self.text) else _LINE_BREAK.split(self.text)
        return self._lines or None


def _block_lines(node: ScalarNode, text: _TextLines, limits: Limits) -> dict[str, int]:
    """``{path inside: line in the source}`` for a block scalar holding one YAML mapping or sequence.

    The block's lines are taken from the source (the line after the ``|``/``>`` header up to the first line
    indented less than the block), dedented and parsed as YAML; they are used only when that parses to the same
    value as the scalar's own text (always for ``|``; for ``>`` when folding changed nothing that matters, e.g.
    each key on its own more-indented line), else nothing is returned and findings inside point at the key.
    One level only: a block scalar inside the block is not looked into."""
    value = node.value
    lines = text.lines if _MAY_BE_YAML.search(value) else None
    if lines is None:
        return {}
    first = node.start_mark.line + 1  # 0-based: the header line holds only the indicators and a comment
    last = min(node.end_mark.line, len(lines) - 1)
    indent: int | None = None
    body: list[str] = []
    for raw in lines[first : last + 1]:
        if not raw.strip():
            body.append("")
            continue
        width = len(raw) - len(raw.lstrip(" "))
        if indent is None:
            indent = width
        elif width < indent:
            break  # the next key of the enclosing mapping (or a comment after the block)
        body.append(raw[indent:])
    if indent is None:
        return {}
    raw_text = "\n".join(body) + "\n"
    # The same text but for trailing line breaks (a literal block, chomped or not) is the same YAML: one parse.
    same_text = raw_text.rstrip("\n") == value.rstrip("\n")
    try:
        located = list(_yaml_documents(raw_text, "<block>", limits, with_path_lines=True, blocks=False))
        plain = located if same_text else list(_yaml_documents(value, "<block>", limits, False, blocks=False))
    except InputError:
        return {}
    if len(located) != 1 or len(plain) != 1 or located[0].data != plain[0].data:
        return {}
    if not isinstance(located[0].data, dict | list):
        return {}
    return {path: first + line for path, line in located[0].path_lines.items() if path}


def _yaml_documents(
    text: str, source: str, limits: Limits, with_path_lines: bool, *, blocks: bool = True
) -> Iterator[_Parsed]:
    loader = _SafeLoader(text)
    lines = _TextLines(text) if blocks else None
    try:
        for node in _compose(loader, source, limits):
            _check_node(node, source, limits)
            try:
                data = loader.construct_document(node)
            except (ValueError, TypeError, AttributeError, OverflowError) as exc:
                # PyYAML's constructors raise plain errors for a value that does not fit its explicit tag
                # (`!!int abc`, `!!timestamp x`, `!!binary @`) or an integer longer than Python accepts.
                raise InputError(
                    source, f"not valid YAML: a value does not fit its type ({exc})", node.start_mark.line + 1
                ) from None
            paths = _path_lines(node, limits, lines) if with_path_lines else {}
            yield _Parsed(node.start_mark.line + 1, data, _list_item_lines(node), paths)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(part for part in (exc.context, exc.problem) if part)
        raise InputError(source, f"not valid YAML: {problem or exc}", line) from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"not valid YAML: {exc}") from None
    except RecursionError:
        raise InputError(source, "nested too deeply to parse") from None
    finally:
        loader.dispose()


# --- JSON loading -------------------------------------------------------------------------------------


def _json_documents(text: str, source: str, limits: Limits) -> Iterator[_Parsed]:
    """One JSON value, or several concatenated/whitespace-separated ones."""
    decoder = json.JSONDecoder()
    pos = 0
    length = len(text)
    while True:
        while pos < length and text[pos] in " \t\r\n":
            pos += 1
        if pos >= length:
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise InputError(source, f"not valid JSON: {exc.msg}", exc.lineno) from None
        except RecursionError:
            raise InputError(source, "nested too deeply to parse", line) from None
        except ValueError as exc:  # e.g. an integer literal longer than Python accepts
            raise InputError(source, f"not valid JSON: {exc}", line) from None
        _check_json_depth(value, source, line, limits)
        yield _Parsed(line, value, None, {})
        pos = end


def _check_json_depth(value: Any, source: str, line: int, limits: Limits) -> None:
    stack: list[tuple[Any, int]] = [(value, 1)]
    count = 0
    while stack:
        current, depth = stack.pop()
        count += 1
        if depth > limits.max_depth:
            raise InputError(source, f"nested deeper than {limits.max_depth} levels", line)
        if count > limits.max_nodes:
            raise InputError(source, f"more than {limits.max_nodes} values", line)
        if isinstance(current, dict):
            stack.extend((child, depth + 1) for child in current.values())
        elif isinstance(current, list):
            stack.extend((child, depth + 1) for child in current)


# --- public API ---------------------------------------------------------------------------------------


def _decode(raw: bytes, source: str, limits: Limits) -> str:
    if len(raw) > limits.max_bytes:
        raise InputError(source, f"input larger than {limits.max_bytes} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(source, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})", line) from None


def _is_list(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("kind"), str)
        and data["kind"].endswith("List")
        and isinstance(data.get("items"), list)
    )


_ITEM_PATH = re.compile(r"items\[(\d+)\]\.?")


def _split_item_paths(path_lines: dict[str, int]) -> dict[int, dict[str, int]]:
    """``items[3].spec.x`` -> {3: {"spec.x": line}}, in one pass."""
    out: dict[int, dict[str, int]] = {}
    for path, line in path_lines.items():
        match = _ITEM_PATH.match(path)
        if match:
            out.setdefault(int(match.group(1)), {})[path[match.end() :]] = line
    return out


def expand_lists(documents: Iterable[Document]) -> list[Document]:
    """Replace every List document by its items (an empty List contributes nothing)."""
    out: list[Document] = []
    for doc in documents:
        if not doc.is_list:
            out.append(doc)
            continue
        list_kind: str = doc.data["kind"]
        item_kind = list_kind[: -len("List")] if list_kind != "List" else None
        api_version = doc.data.get("apiVersion")
        lines = doc.item_lines or ()
        item_paths = _split_item_paths(doc.path_lines)
        for position, item in enumerate(doc.data["items"]):
            if item_kind and isinstance(item, dict):
                # API list responses (RayJobList, ...) omit kind/apiVersion on their items.
                item.setdefault("kind", item_kind)
                if isinstance(api_version, str):
                    item.setdefault("apiVersion", api_version)
            line = lines[position] if position < len(lines) else doc.line
            paths = item_paths.get(position, {})
            out.append(Document(doc.source, line, doc.index, item, position, path_lines=paths))
    return out


def _json_lines_via_yaml(text: str, source: str, limits: Limits, parsed: list[_Parsed]) -> list[_Parsed]:
    """Line numbers for JSON documents, by composing the same text as YAML (JSON is YAML flow syntax)."""
    try:
        composed = list(_yaml_documents(text, source, limits, with_path_lines=True))
    except InputError:
        return parsed
    if len(composed) != len(parsed):
        return parsed
    return [
        _Parsed(doc.line, doc.data, located.item_lines, located.path_lines)
        for doc, located in zip(parsed, composed, strict=True)
    ]


def parse_documents(
    text: str | bytes,
    source: str = "<input>",
    *,
    flatten_lists: bool = True,
    with_path_lines: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> list[Document]:
    """Parse YAML or JSON text into documents. Empty documents (``---`` with nothing) are skipped.

    ``flatten_lists`` replaces List documents by their items; ``with_path_lines`` fills
    :attr:`Document.path_lines` (and, for JSON, the List item lines) at the cost of a second pass for JSON.
    """
    if isinstance(text, bytes):
        text = _decode(text, source, limits)
    elif len(text) > limits.max_bytes:
        raise InputError(source, f"input larger than {limits.max_bytes} characters")
    if "\x00" in text:
        raise InputError(
            source,
            "binary data (NUL byte), not YAML or JSON text",
            text.count("\n", 0, text.index("\x00")) + 1,
        )
    parsed: list[_Parsed]
    if text.lstrip()[:1] in ("{", "["):
        try:
            parsed = list(_json_documents(text, source, limits))
        except InputError as json_error:
            try:  # JSON-looking YAML flow style ("{kind: RayJob}") is still YAML
                parsed = list(_yaml_documents(text, source, limits, with_path_lines))
            except InputError:
                raise json_error from None
        else:
            if with_path_lines:
                parsed = _json_lines_via_yaml(text, source, limits, parsed)
    else:
        parsed = list(_yaml_documents(text, source, limits, with_path_lines))
    out: list[Document] = []
    for item in parsed:
        if item.data is None:
            continue
        lines = tuple(item.item_lines) if item.item_lines is not None else None
        out.append(Document(source, item.line, len(out), item.data, item_lines=lines, path_lines=item.path_lines))
    return expand_lists(out) if flatten_lists else out


def _read_bytes(stream: IO[bytes], source: str, limits: Limits) -> bytes:
    raw = stream.read(limits.max_bytes + 1)
    if len(raw) > limits.max_bytes:
        raise InputError(source, f"input larger than {limits.max_bytes} bytes")
    return raw


def _read_raw(source: str, stdin: IO[bytes] | None, limits: Limits) -> tuple[str, bytes]:
    if source == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        return "<stdin>", _read_bytes(stream, "<stdin>", limits)
    path = Path(source)
    try:
        if path.is_dir():
            raise InputError(source, "is a directory")
        with path.open("rb") as handle:
            return source, _read_bytes(handle, source, limits)
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None


#: File name endings read when a folder is given.
DOCUMENT_SUFFIXES: Final = (".yaml", ".yml", ".json")


def expand_paths(sources: Sequence[str]) -> list[str]:
    """Folders replaced by the YAML/JSON files under them (sorted, hidden folders skipped); ``-`` and files kept.

    A folder with no such file is an :class:`InputError` (an empty input is a mistake, not a clean result).
    """
    out: list[str] = []
    for source in sources:
        path = Path(source)
        if source == STDIN or not path.is_dir():
            out.append(source)
            continue
        found = sorted(
            child
            for child in path.rglob("*")
            if child.is_file()
            and child.suffix.lower() in DOCUMENT_SUFFIXES
            and not any(part.startswith(".") for part in child.relative_to(path).parts)
        )
        if not found:
            raise InputError(source, "no YAML or JSON files in this folder")
        out.extend(str(child) for child in found)
    return out


def read_source(
    source: str,
    *,
    stdin: IO[bytes] | None = None,
    flatten_lists: bool = False,
    with_path_lines: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Source:
    """The documents of one file (``-``: ``stdin``, default the process's binary stdin), Lists kept as is."""
    name, raw = _read_raw(source, stdin, limits)
    documents = parse_documents(raw, name, flatten_lists=flatten_lists, with_path_lines=with_path_lines, limits=limits)
    return Source(name, tuple(documents))


def read_documents(
    sources: Sequence[str],
    *,
    stdin: IO[bytes] | None = None,
    flatten_lists: bool = True,
    with_path_lines: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> list[Document]:
    """Documents from every source in order (Lists replaced by their items unless ``flatten_lists=False``)."""
    out: list[Document] = []
    for source in sources:
        read = read_source(
            source, stdin=stdin, flatten_lists=flatten_lists, with_path_lines=with_path_lines, limits=limits
        )
        out.extend(read.documents)
    return out
