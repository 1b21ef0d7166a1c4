"""Fresh virtual environments for the tests that install the package as a user does, with
PyTorch taken from this test environment rather than unpacked again.

``make test`` installs PyTorch's pinned CPU wheel (``torch==2.13.0``) into the test
environment; a new venv gets the same installed files hard-linked (copied where the two
folders are on different file systems), their compiled modules included. pip then finds
``torch==2.13.0`` already satisfied, as on a CI runner that restores its site-packages from a
cache, and installs everything else itself. Unpacking PyTorch's 750 MB took most of each
install, and compiling its modules again most of the first run in each venv.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def checkout_wheel(work: Path) -> Path:
    """This checkout as a wheel, built under ``work`` from a copy (nothing is written to the
    tree): installed as the published package would be, and found already installed by a
    second install of the same version."""
    source, out = work / "source", work / "wheel"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return next(out.glob("rag_eval_pytest-*.whl"))


def site_packages(venv: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True
    )
    return Path(done.stdout.strip())


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


def link_tree(source: Path, target: Path) -> None:
    """``source``'s files hard-linked under ``target`` (the same files; whatever pip writes
    next is a new file, so the two trees stay apart), symbolic links kept as links."""
    shutil.copytree(source, target, symlinks=True, copy_function=_link, dirs_exist_ok=True)


def link_installed(name: str, venv: Path) -> bool:
    """Link the distribution ``name`` of this test environment into ``venv``: its top-level
    folders and files under site-packages (not its console scripts, whose first line names
    this environment's Python). False, and nothing done, where it is not installed here."""
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    tops = {file.parts[0] for file in distribution.files or () if file.parts[0] != ".."}
    target = site_packages(venv)
    for top in sorted(tops):
        source = Path(str(distribution.locate_file(top)))
        if source.is_dir():
            link_tree(source, target / top)
        elif source.is_file():
            _link(str(source), str(target / top))
    return True
