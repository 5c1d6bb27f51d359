"""The light install: the wheel with its core dependencies only (no extra) reads, validates and scores
runs, computes IR4QA measures and meta-evaluates; what needs an extra says which one.

The core environment is a fresh virtual environment holding the built wheel and, linked from this
environment, exactly the distributions the wheel's core requirements reach (nothing downloaded): the
same packages `pip install sepia-eval` would bring, at the versions the tests run with."""
from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from sepia.cli import EXTRA_OF_MODULE

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "corpora" / "cs"
EXTRAS = ("cjk", "search", "plots", "web")


def _core_requirements(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        lines = archive.read(meta).decode().splitlines()
    requirements = [Requirement(line.split(":", 1)[1]) for line in lines if line.startswith("Requires-Dist:")]
    return [r for r in requirements if not r.marker or r.marker.evaluate({"extra": ""})]


def _closure(requirements: list[Requirement]) -> set[str]:
    """The installed distributions these requirements reach, without any extra."""
    seen: set[str] = set()
    todo = list(requirements)
    while todo:
        requirement = todo.pop()
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.distribution(name).requires or ():
            nested = Requirement(text)
            if not nested.marker or nested.marker.evaluate({"extra": ""}):
                todo.append(nested)
    return seen


@pytest.fixture(scope="module")
def core_python(tmp_path_factory) -> Path:
    """The python of a virtual environment holding the wheel and its core dependencies only."""
    tmp = tmp_path_factory.mktemp("light")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp), str(ROOT)],
                   check=True, capture_output=True)
    [wheel] = tmp.glob("*.whl")
    site = tmp / "core-site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(site),
                    str(wheel)], check=True, capture_output=True)
    for name in _closure(_core_requirements(wheel)):
        distribution = metadata.distribution(name)
        for top in {Path(str(f)).parts[0] for f in distribution.files or ()} - {"..", "__pycache__"}:
            source = Path(str(distribution.locate_file(top)))
            if source.exists() and not (site / top).exists():
                (site / top).symlink_to(source)
    environment = tmp / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    (Path(purelib) / "sepia-core.pth").write_text(f"{site}\n")
    return python


def _sepia(python: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-m", "sepia", *args], capture_output=True, text=True, cwd=CS.parent)


@pytest.mark.slow
def test_core_install_scores_measures_and_meta_evaluates(core_python):
    absent = subprocess.run([str(core_python), "-c", "import importlib.util as u; print([m for m in "
                             "('flask', 'matplotlib', 'jieba', 'sudachipy', 'tantivy', 'whoosh', 'gunicorn') "
                             "if u.find_spec(m)])"], capture_output=True, text=True, check=True).stdout
    assert absent.strip() == "[]"   # the extras are really missing here
    for args in (["validate", str(CS / "gold.xml")],
                 ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs")],
                 ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"), "--matcher", "human",
                  "--judgments", str(CS / "judgments.tsv")],
                 ["evaluate-ir4qa", "--qrels", str(CS / "qrels.tsv"), "--run", str(CS / "ir4qa")],
                 ["metaeval", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                  "--judgments", str(CS / "judgments.tsv")]):
        light = _sepia(core_python, *args)
        full = _sepia(Path(sys.executable), *args)
        assert light.returncode == 0, (args, light.stderr)
        assert light.stdout == full.stdout, args   # the same numbers as the full install's


@pytest.mark.slow
@pytest.mark.parametrize("args, extra", [(["serve"], "web"), (["search", "--lang", "cs", "禽流感"], "search"),
                                         (["metaeval", "tukey", "--gold", str(CS / "gold.xml"), "--run",
                                           str(CS / "runs"), "--trials", "10", "--plot", "t.png"], "plots")])
def test_what_needs_an_extra_names_it(core_python, args, extra, tmp_path):
    result = subprocess.run([str(core_python), "-m", "sepia", *args], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"pip install 'sepia-eval[{extra}]'" in result.stderr


def test_the_extras_map_names_every_optional_package():
    """EXTRA_OF_MODULE, where the message's extra comes from, agrees with pyproject.toml: each module
    is a distribution its extra names, and each distribution an extra names is there."""
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    declared = {(Requirement(text).name.lower(), extra) for extra in (*EXTRAS, "postgres", "embeddings") for text in optional[extra]
                if Requirement(text).name != "sepia-eval"}
    mapped = {({"whoosh": "whoosh-reloaded"}.get(module, module.replace("_", "-")), extra)
              for module, extra in EXTRA_OF_MODULE.items()}
    assert mapped == declared
