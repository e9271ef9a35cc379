"""Two habits of the source, checked by ``tests/test_source_style.py`` and applied by ``--fix``:

* a user-facing text (a message, an error, a rule's rationale or fix, a help text) is one string literal on one
  line, so that what a user sees can be found with grep: no fragments joined implicitly across lines;
* no line over :data:`LINE_LENGTH` characters, except one that is long because of such a string.

``python tools/source_style.py [--fix] PATH...`` lists (or joins) the fragments; exit 1 when any is left.
Data written as text (a YAML document built line by line, a JSONPath expression) may keep its lines: end the
first line of the statement, or of the text itself, with a ``# text-block`` comment.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

LINE_LENGTH = 120
#: Generated files (their generator owns their layout).
SKIP = ("_k8s.py",)
TEXT_BLOCK = "# text-block"


@dataclass(frozen=True)
class Fragments:
    """String literals on several lines that Python joins into one (``"a " "b"``)."""

    path: Path
    first_line: int
    last_line: int
    start: tuple[int, int]
    end: tuple[int, int]
    pieces: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.path}:{self.first_line}: a text split over lines {self.first_line}-{self.last_line}"


def _string_runs(source: str) -> list[list[tokenize.TokenInfo]]:
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    runs: list[list[tokenize.TokenInfo]] = []
    current: list[tokenize.TokenInfo] = []
    for token in tokens:
        if token.type == tokenize.STRING:
            current.append(token)
        elif token.type in (tokenize.NL, tokenize.COMMENT) and current:
            continue
        else:
            if len(current) > 1 and current[-1].end[0] > current[0].start[0]:
                runs.append(current)
            current = []
    return runs


def _text_blocks(source: str) -> set[int]:
    """Lines of statements marked ``# text-block`` (their strings are data, one line of text per line)."""
    marked = {number for number, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith(TEXT_BLOCK)}
    lines: set[int] = set(marked)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt) and node.lineno in marked:
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def fragments(path: Path) -> list[Fragments]:
    source = path.read_text()
    blocks = _text_blocks(source)
    out = []
    for run in _string_runs(source):
        if run[0].start[0] in blocks:
            continue
        out.append(
            Fragments(path, run[0].start[0], run[-1].end[0], run[0].start, run[-1].end, tuple(t.string for t in run))
        )
    return out


def _split_literal(text: str) -> tuple[str, str, str]:
    """(prefix, quote, body) of one string literal token."""
    index = 0
    while text[index] in "rRbBuUfF":
        index += 1
    prefix, rest = text[:index], text[index:]
    quote = rest[:3] if rest[:3] in ('"""', "'''") else rest[0]
    return prefix, quote, rest[len(quote) : -len(quote)]


def join(pieces: tuple[str, ...]) -> str | None:
    """One literal equal to the implicit concatenation of ``pieces``; None when it cannot be written safely
    (raw or bytes or triple-quoted pieces, or quotes that would clash inside an f-string's expressions)."""
    parts = [_split_literal(piece) for piece in pieces]
    if any(set(prefix.lower()) - {"f"} or len(quote) == 3 for prefix, quote, _ in parts):
        return None
    formatted = any("f" in prefix.lower() for prefix, _, _ in parts)
    bodies = []
    for prefix, quote, body in parts:
        if quote == "'":  # to a double-quoted body
            if "f" in prefix.lower() and '"' in body:
                return None  # an expression may hold a double quote: leave it to a human
            body = body.replace("\\'", "'").replace('"', '\\"')
        if formatted and "f" not in prefix.lower():
            body = body.replace("{", "{{").replace("}", "}}")
        bodies.append(body)
    return ("f" if formatted else "") + '"' + "".join(bodies) + '"'


def fix(path: Path) -> int:
    """Join every run of fragments in ``path``; returns how many were joined."""
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    joined = 0
    for found in sorted(fragments(path), key=lambda f: f.start, reverse=True):
        literal = join(found.pieces)
        if literal is None:
            continue
        (l1, c1), (l2, c2) = found.start, found.end
        head, tail = lines[l1 - 1][:c1], lines[l2 - 1][c2:]
        lines[l1 - 1 : l2] = [head + literal + tail]
        joined += 1
    path.write_text("".join(lines))
    return joined


def long_lines(path: Path) -> list[str]:
    """Lines over the limit that are not long because of a text: without their longest string literal they would
    still be over it."""
    source = path.read_text()
    strings: dict[int, list[tuple[int, int]]] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and token.start[0] == token.end[0]:
            strings.setdefault(token.start[0], []).append((token.start[1], token.end[1]))
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        longest = max((end - start for start, end in strings.get(number, [])), default=0)
        if len(line) - longest > LINE_LENGTH:
            out.append(f"{path}:{number}: {len(line)} characters (limit {LINE_LENGTH}, longer only for a text)")
    return out


def python_files(paths: list[Path]) -> list[Path]:
    out = []
    for path in paths:
        candidates = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        out += [p for p in candidates if p.name not in SKIP and ".venv" not in p.parts]
    return out


def main(argv: list[str]) -> int:
    apply = "--fix" in argv
    files = python_files([Path(a) for a in argv if a != "--fix"])
    if apply:
        print(f"joined {sum(fix(path) for path in files)} split texts")
    problems = [str(found) for path in files for found in fragments(path)]
    problems += [line for path in files for line in long_lines(path)]
    print("\n".join(problems) if problems else "source style: clean")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
