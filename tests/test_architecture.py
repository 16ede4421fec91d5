"""The import graph of ``src/pigdice``, built from the AST: no cycle and no upward import.

Data flows one way (README, "Architecture"): rules -> engine -> (players | solve) -> study ->
front ends. Every import counts, including those inside functions and under TYPE_CHECKING:
a lazy import upward is still a dependency upward, and a cycle hidden in a function is
still a cycle.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "pigdice"

# the layer of each top-level part; a module may import only from a lower layer or its own part
LAYERS = {
    "pigdice": 0,  # the package itself: the version
    "errors": 0,
    "kernelcache": -1,  # where numba keeps compiled kernels (set before numba is imported)
    "files": 0.5,  # safe reading and writing, plain files only (it raises an error of errors.py)
    "cleantext": 0.5,  # text from outside made safe to show
    "rules": 1,
    "engine": 2,
    "solve": 2,
    "players": 3,
    "study": 4,
    "terminal": 5,
    "web": 5,
    "envs": 5,  # the research interfaces: adapters like the other front ends
    "cli": 6,
    "__main__": 7,
}


def module_name(path: Path) -> str:
    """Return the dotted module name of a source file."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    """Return every module of the package by dotted name."""
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


@functools.cache
def syntax_tree(path: Path) -> ast.Module:
    """Return the parsed module at ``path``, parsed once for every check of this file."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Return the pigdice modules that ``name`` imports (submodules where ``from pkg import sub``)."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "pigdice")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] != "pigdice":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    ancestors = {".".join(name.split(".")[:n]) for n in range(1, name.count(".") + 1)}
    return {target for target in found if target != name and target not in ancestors}


def part(name: str) -> str:
    """Return the top-level part of a module ('rules', 'solve', ... or 'pigdice')."""
    pieces = name.split(".")
    return pieces[1] if len(pieces) > 1 else "pigdice"


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_every_part_has_a_layer(graph: dict[str, set[str]]) -> None:
    unknown = sorted({part(name) for name in graph} - set(LAYERS))
    assert not unknown, f"give these parts a layer in LAYERS and in README's Architecture: {unknown}"


def test_no_upward_or_sideways_import(graph: dict[str, set[str]]) -> None:
    wrong = []
    for name, targets in graph.items():
        for target in targets:
            here, there = part(name), part(target)
            if here != there and LAYERS[there] >= LAYERS[here]:
                wrong.append(f"{name} -> {target}")
    assert not wrong, "imports against the flow:\n" + "\n".join(sorted(wrong))


def test_solver_needs_only_the_rules(graph: dict[str, set[str]]) -> None:
    outside = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if part(name) == "solve"
        for target in targets
        if part(target) not in ("solve", "rules", "errors", "files", "pigdice", "kernelcache")
    )
    assert not outside, outside


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle(graph: dict[str, set[str]]) -> None:
    assert strongly_connected(graph) == []


def test_the_checker_finds_a_cycle_and_an_upward_import() -> None:
    # the checks above must be able to fail: a made-up graph with both faults
    made_up = {"pigdice.rules.a": {"pigdice.study.b"}, "pigdice.study.b": {"pigdice.rules.a"}}
    assert strongly_connected(made_up) == [["pigdice.rules.a", "pigdice.study.b"]]
    assert LAYERS[part("pigdice.study.b")] > LAYERS[part("pigdice.rules.a")]


def test_the_architecture_page_names_every_module() -> None:
    # docs/architecture.md's module map must match the code: a new module is named there, with its job
    page = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py" and not re.search(rf"\b{re.escape(path.name)}\b", page)
    ]
    assert unnamed == []


def test_no_file_keeps_a_merge_conflict() -> None:
    # a merge left "<<<<<<< HEAD" ... ">>>>>>> branch" in the architecture page once, and nothing noticed
    root = SRC.parent
    texts = [path for folder in ("src", "docs", "tests", "bench", ".ci") for path in (root / folder).rglob("*")]
    texts += [root / "README.md", root / "pyproject.toml"]
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)
    kept = [
        str(path.relative_to(root))
        for path in texts
        if path.is_file()
        and path.suffix in (".py", ".md", ".toml", ".js", ".html", ".css", ".json", ".txt", "")
        and "__pycache__" not in path.parts
        and marker.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert kept == []


# The house rules of issue 29: small functions, small modules, one effect step.
MAX_PARAMETERS = 12
MAX_MODULE_LINES = 900
EFFECT_STEP_MODULE = "pigdice.solve.step"


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Return how many parameters a function takes, not counting self or cls."""
    args = node.args
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(names) + (args.vararg is not None) + (args.kwarg is not None)
    return count - (bool(names) and names[0].arg in ("self", "cls"))


def long_signatures(tree: ast.AST) -> list[str]:
    """Return 'name (n)' for every function of ``tree`` with more than MAX_PARAMETERS parameters."""
    return [
        f"{node.name} ({parameter_count(node)})"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and parameter_count(node) > MAX_PARAMETERS
    ]


def dispatches_on_effect_kind(tree: ast.AST) -> bool:
    """Return True if a module compiles numba code and compares something with an effect kind code."""
    compiles = any(
        isinstance(node, ast.ImportFrom) and node.module == "numba" for node in ast.walk(tree)
    )  # fmt: skip
    compared = any(
        isinstance(node, ast.Compare)
        and any(isinstance(part, ast.Name) and part.id.startswith("KIND_") for part in [node.left, *node.comparators])
        for node in ast.walk(tree)
    )
    kinds_in_tuples = any(
        isinstance(node, ast.Compare)
        and any(
            isinstance(part, ast.Tuple | ast.List)
            and any(isinstance(item, ast.Name) and item.id.startswith("KIND_") for item in part.elts)
            for part in node.comparators
        )
        for node in ast.walk(tree)
    )
    return compiles and (compared or kinds_in_tuples)


def test_no_function_takes_more_than_twelve_parameters() -> None:
    found = []
    for name, path in all_modules().items():
        found += [f"{name}.{what}" for what in long_signatures(syntax_tree(path))]
    assert not found, "bundle these parameters into NamedTuples:\n" + "\n".join(sorted(found))


def test_no_module_is_over_900_lines() -> None:
    long = {
        name: lines
        for name, path in all_modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these modules (one job each): {long}"


def test_the_effect_switch_exists_once() -> None:
    dispatching = sorted(name for name, path in all_modules().items() if dispatches_on_effect_kind(syntax_tree(path)))
    assert dispatching == [EFFECT_STEP_MODULE], "kernels call solve.step.effect_step instead of switching themselves"


def test_the_house_checks_can_fail() -> None:
    made_up = ast.parse(
        "from numba import njit\n"
        "def f(a, b, c, d, e, f, g, h, i, j, k, l, m):\n"
        "    if kind == KIND_ADD:\n"
        "        return 1\n"
        "    return kind in (KIND_SET, KIND_BANK)\n"
    )
    assert long_signatures(made_up) == ["f (13)"]
    assert dispatches_on_effect_kind(made_up)
    assert not dispatches_on_effect_kind(ast.parse("x = KIND_ADD == 0\n"))  # no numba: a table, not a kernel
