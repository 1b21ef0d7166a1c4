"""Fresh virtual environments for the tests that install the package as a user does, with
the distributions it needs taken from this test environment rather than unpacked again.

``make test`` installs PyTorch's pinned CPU wheel (``torch==2.13.0``) and the package's
extras into the test environment; a new venv gets the installed files of what an install
needs hard-linked (none where the two folders are on different file systems: pip then
installs everything), their compiled modules included. :func:`link_requirements` follows
the requirements of the checkout's wheel and its extras, as pip's resolver would, through
the distributions installed here. pip, run next as the user runs it, then finds them
already satisfied, as on a CI runner that restores its site-packages from a cache, and
installs what is left (the package itself, and anything the test environment lacks or
holds at a version the requirements refuse). Unpacking PyTorch's 750 MB and the local
model's libraries took most of each install, and compiling their modules again most of the
first run in each venv. A requirement the package forgets to declare is not followed, so
the venv lacks it as a user's would.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def link_requirements(venv: Path, requirements: list[str], wheel: Path | None = None) -> None:
    """Link into ``venv`` every distribution of this test environment that ``requirements``
    and the requirements of ``wheel`` (with the extras named after it, ``path[a,b]``) reach,
    followed through each distribution's own requirements with its markers, where the version
    installed here satisfies the requirement (else pip installs it). The package itself is
    never linked (the test environment holds it as an editable install); an extra of it that
    names another (``rag-eval-pytest[local]``) is followed in the wheel."""
    pending = [(Requirement(line), "") for line in requirements]
    own = ""
    extras: set[str] = set()
    if wheel is not None:
        path, _, named = str(wheel).partition("[")
        own, lines = _wheel_requirements(Path(path))
        pending.append((Requirement(f"{own}[{named}" if named else own), ""))
    target = site_packages(venv)
    if os.stat(target).st_dev != os.stat(sysconfig.get_paths()["purelib"]).st_dev:
        return  # another file system: copying would be slower than pip's own install
    linked: set[str] = set()
    while pending:
        requirement, extra = pending.pop()
        name = canonicalize_name(requirement.name)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        if name == own:
            for new in ({""} | requirement.extras) - extras:
                extras.add(new)
                pending += [(Requirement(line), new) for line in lines]
            continue
        if name in linked:
            continue
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if not requirement.specifier.contains(distribution.version, prereleases=True):
            continue
        linked.add(name)
        _link_distribution(distribution, venv, target)
        for line in distribution.requires or ():
            pending += [(Requirement(line), e) for e in ["", *requirement.extras]]


def _wheel_requirements(wheel: Path) -> tuple[str, list[str]]:
    """The wheel's distribution name (normalised) and its ``Requires-Dist`` lines."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        headers = HeaderParser().parsestr(archive.read(metadata).decode("utf-8"))
    return canonicalize_name(headers["Name"]), list(headers.get_all("Requires-Dist") or ())


SCRIPT = """#!{python}
import re
import sys
from {module} import {attribute}
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit({call}())
"""


def _link_distribution(
    distribution: importlib.metadata.Distribution, venv: Path, target: Path
) -> None:
    # The files its RECORD lists under site-packages (compiled modules included), one by
    # one: a top-level __pycache__ folder is shared with other distributions.
    for file in distribution.files or ():
        if file.parts[0] == "..":
            continue
        source, destination = Path(str(distribution.locate_file(file))), target / file
        if source.is_file() and not destination.exists():
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.link(source, destination)
    # Its console scripts as pip writes them: the first line names the venv's Python.
    for entry in distribution.entry_points.select(group="console_scripts"):
        module, _, attribute = entry.value.partition(":")
        script = venv / "bin" / entry.name
        script.write_text(
            SCRIPT.format(
                python=venv / "bin" / "python",
                module=module.strip(),
                attribute=attribute.split(".")[0].strip(),
                call=attribute.strip(),
            ),
            encoding="utf-8",
        )
        script.chmod(0o755)
