"""docs/architecture.md's layers, checked against the code: every import between SEPIA's packages
(inside functions too) is one the layer table allows or one the page lists as a crossing, and every
crossing it lists is still there; import-linter's contract in pyproject.toml is the same table."""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
SEPIA = ROOT / "sepia"
NAMES = {p.stem for p in SEPIA.glob("*.py")} | {p.name for p in SEPIA.iterdir() if (p / "__init__.py").exists()}


def section(marker: str) -> str:
    """The lines after the page's marker up to the first blank line (none when one follows at once)."""
    rest = PAGE.split(f"<!-- {marker} -->\n", 1)[1]
    return "" if rest.startswith("\n") else rest.split("\n\n", 1)[0]


def layers() -> tuple[dict[str, str], dict[str, set[str]]]:
    """Each package's layer, and the layers each layer may import, from the page's table."""
    layer_of, allowed = {}, {}
    for row in section("layers").splitlines()[2:]:
        layer, packages, imports = (cell.strip() for cell in row.strip("|").split("|"))
        layer_of.update((name, layer) for name in re.findall(r"`(\w+)`", packages))
        allowed[layer] = {name.strip() for name in imports.split(",")}
    return layer_of, allowed


def listed_crossings() -> set[tuple[str, str]]:
    found = set()
    for line in section("crossings").splitlines():
        path, targets = re.match(r"- `(sepia/[\w/]+\.py)` → ([^:]+):", line).groups()
        found.update((path, target) for target in re.findall(r"`(\w+)`", targets))
    return found


def imported_packages(tree: ast.AST):
    """The top-level names under sepia that a module imports, anywhere in it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "sepia":
            parts = node.module.split(".")
            if len(parts) > 1:
                yield parts[1]
            else:
                yield from (a.name if a.name in NAMES else "__init__" for a in node.names)
        elif isinstance(node, ast.Import):
            yield from (a.name.split(".")[1] for a in node.names if a.name.startswith("sepia."))


def crossings_in(package: str, tree: ast.AST, layer_of, allowed) -> set[str]:
    """The packages a module of `package` imports that its layer may not."""
    return {t for t in imported_packages(tree) if layer_of[t] not in allowed[layer_of[package]]}


def actual_crossings(layer_of, allowed) -> set[tuple[str, str]]:
    found = set()
    for path in sorted(SEPIA.rglob("*.py")):
        package = path.relative_to(SEPIA).parts[0].removesuffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found.update((path.relative_to(ROOT).as_posix(), t) for t in crossings_in(package, tree, layer_of, allowed))
    return found


def test_every_package_has_one_layer():
    layer_of, allowed = layers()
    assert set(layer_of) == NAMES
    assert set(allowed) >= {i for imports in allowed.values() for i in imports}


def test_the_code_crosses_the_layers_exactly_where_the_page_says():
    layer_of, allowed = layers()
    actual, listed = actual_crossings(layer_of, allowed), listed_crossings()
    assert not actual - listed, "imports the layer table does not allow: add them to the crossings or move them"
    assert not listed - actual, "crossings the code no longer has: take them off the page"


def test_an_import_inside_a_function_counts_and_an_allowed_one_does_not():
    layer_of, allowed = layers()
    module = ast.parse("from sepia import vocab\nfrom sepia.formats import model\n\n\n"
                       "def f():\n    from sepia.web import create_app\n    import sepia.store.db\n")
    assert crossings_in("scoring", module, layer_of, allowed) == {"web", "store"}
    assert crossings_in("commands", module, layer_of, allowed) == set()


def contract(kind: str) -> dict:
    """import-linter's one contract of that type (`make lint`)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    [found] = [c for c in config["contracts"] if c["type"] == kind]
    return found


def contract_layers() -> list[set[str]]:
    """The packages of each layer of import-linter's contract (`make lint`), bottom first."""
    layers_contract = contract("layers")
    assert layers_contract["containers"] == ["sepia"] and layers_contract["exhaustive"]
    return [{name.strip() for name in layer.split(":")} for layer in reversed(layers_contract["layers"])]


def test_the_import_contract_is_the_pages_table():
    """Each layer of the contract holds the packages of the page's row (the root package `sepia`
    itself is no layer of a container), and each row may import itself and the rows above it."""
    layer_of, allowed = layers()
    rows = list(allowed)  # the table's order: base first
    assert [{p for p, layer in layer_of.items() if layer == row} - {"__init__"} for row in rows] == contract_layers()
    assert all(allowed[row] == set(rows[:i + 1]) for i, row in enumerate(rows))


# ---------------------------------------------------------------- the web on services

FORBIDDEN = {"sqlalchemy": "sqlalchemy", "store.models": "sepia.store.models", "store.db": "sepia.store.db"}


def listed_web_exceptions() -> set[tuple[str, str]]:
    """(module, what it may still import) for each line of the page's list."""
    found = set()
    for line in section("web-on-services").splitlines():
        path, targets = re.match(r"- `(sepia/web/\w+\.py)` → ([^:]+):", line).groups()
        module = path.removesuffix(".py").replace("/", ".")
        found.update((module, FORBIDDEN[t]) for t in re.findall(r"`([\w.]+)`", targets))
    return found


def forbidden_in_web() -> set[tuple[str, str]]:
    """(module, forbidden module) for each import of SQLAlchemy, the ORM or the sessions in sepia/web."""
    found = set()
    for path in sorted((SEPIA / "web").glob("*.py")):
        module = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if isinstance(node, ast.ImportFrom) and node.module == "sepia.store":
                names = [f"sepia.store.{a.name}" for a in node.names]
            found.update((module, target) for name in names for target in FORBIDDEN.values()
                         if name == target or name.startswith(target + "."))
    return found


def test_the_web_contract_ignores_exactly_the_modules_the_page_lists():
    web = contract("forbidden")
    assert web["source_modules"] == ["sepia.web"] and set(web["forbidden_modules"]) == set(FORBIDDEN.values())
    ignored = {tuple(part.strip() for part in line.split("->")) for line in web["ignore_imports"]}
    assert ignored == listed_web_exceptions()


def test_the_web_imports_the_orm_exactly_where_the_page_says():
    listed, actual = listed_web_exceptions(), forbidden_in_web()
    assert not actual - listed, "sepia/web imports the ORM: move the database work into a service"
    assert not listed - actual, "the page lists imports of the ORM the web no longer has: take them off"
