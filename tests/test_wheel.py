"""A wheel built from the repository works on its own: it carries schemas, web files, sample
corpora and migrations, and finds them without the source tree."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_carries_its_resources(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    [wheel] = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("cclqa", "gold", "ir4qa", "qa", "topic"):
        assert f"sepia/_data/schemas/{name}.xsd" in names
    assert "sepia/store/migrations/env.py" in names
    assert any(n.startswith("sepia/store/migrations/versions/0001") for n in names)
    assert any(n.startswith("sepia/_data/corpora/cs/") for n in names)
    assert any(n.startswith("sepia/_data/web/templates/") for n in names)
    assert "sepia/text/english_stopwords.txt" in names  # read by sepia.text.english
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); from sepia.resources import resource_dir; "
             "print(resource_dir('schemas'), resource_dir('corpora'), resource_dir('web'))")
    out = subprocess.run([sys.executable, "-c", probe, str(target)], check=True, capture_output=True, text=True,
                         cwd=tmp_path).stdout
    assert out.count(str(target / "sepia" / "_data")) == 3
