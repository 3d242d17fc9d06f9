"""The package stays small enough to read: no module over 500 lines, no import cycle."""

import ast
from pathlib import Path

import assistant

ROOT = Path(assistant.__file__).parent
LIMIT = 500


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules of the package this one imports anywhere (functions included), leaving out
    what is imported only for type checking."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in checking or not isinstance(node, ast.ImportFrom):
            continue
        base = package[:len(package) - node.level + 1] if node.level else []
        target = ".".join(base + ([node.module] if node.module else []))
        for candidate in ([target] if node.module else []) + [
                f"{target}.{a.name}" for a in node.names]:
            if candidate in modules and candidate != name:
                found.add(candidate)
    return found


def test_no_module_is_over_500_lines():
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in _modules().items()}
    assert not {n: k for n, k in long.items() if k > LIMIT}


def test_the_import_graph_has_no_cycle():
    modules = _modules()
    graph = {n: _imports(n, p, modules) for n, p in modules.items()}
    graph["assistant"] = set()  # the package's lazy __getattr__ is an entry point, not a layer
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                raise AssertionError(" -> ".join(path[path.index(nxt):] + [node, nxt]))
            if nxt not in state:
                visit(nxt, path + [node])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [])
