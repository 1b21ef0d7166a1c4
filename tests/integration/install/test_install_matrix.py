"""The documented installs, each in a throwaway venv built from this checkout's wheel, and the
documented usage of each through a real ``pytest`` in a small project:

* plain ``pip install rag-eval-pytest``: a retrieval-only suite passes; a judged suite stops
  with one message naming ``pip install 'rag-eval-pytest[local]'`` (fatal code 3), never an
  INTERNALERROR or a traceback per test;
* ``[local]`` (PyTorch's CPU wheel first): a judged suite runs offline; with
  ``ANTHROPIC_API_KEY`` set (``auto`` picks Anthropic) it stops naming ``[anthropic]``;
* ``[anthropic]`` alone, with a key, against a loopback fake of the Messages API: judges;
* everything: both of the above.

Slow (venvs): one venv per install, shared by the tests of this module (on one xdist worker:
``make test`` distributes whole files). The distributions an install needs are linked from
this test environment (:mod:`tests.integration.venvs`); pip installs the package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.documents import pdf_bytes
from tests.helpers import APP, DEFAULT_CASES, GROUNDED_CASES
from tests.integration.venvs import checkout_wheel, link_requirements
from tests.servers.fake_llm import FakeLLMServer, LoggedRequest, Step, anthropic_tool

TORCH = "torch==2.13.0"  # the Makefile's pin: the CPU wheel
LOCAL_INSTALL = "pip install 'rag-eval-pytest[local]'"
ANTHROPIC_INSTALL = "pip install 'rag-eval-pytest[anthropic]'"
KEY = "sk-ant-install-matrix-test"
RETRIEVAL = "metrics:\n  retrieval_recall: 1.0\n"
JUDGED = "metrics:\n  faithfulness: 0.5\n"
JUDGED_CASES = GROUNDED_CASES

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("RAG_EVAL_SKIP_INSTALL_MATRIX") == "1",
        reason="RAG_EVAL_SKIP_INSTALL_MATRIX=1",
    ),
]


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return checkout_wheel(tmp_path_factory.mktemp("wheel"))


class Venv:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.python = path / "bin" / "python"

    def pip(self, *args: str) -> None:
        # This environment's pip installs into the venv (``--python``): a venv of its own
        # took 6 s to create with pip and 3 s more per install. No bytecode compilation: the
        # first run compiles what it imports.
        _run([sys.executable, "-m", "pip", "--python", str(self.python), "install", "-q",
              "--no-compile", *args])  # fmt: skip

    def pytest(
        self, project: Path, config: str, cases: list[dict[str, object]], **env: str
    ) -> subprocess.CompletedProcess[str]:
        (project / "eval-config.yaml").write_text(config, encoding="utf-8")
        (project / "dataset.json").write_text(
            json.dumps({"metadata": {"name": "t", "created": "2099-01-01"}, "test_cases": cases}),
            encoding="utf-8",
        )
        environment = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "PYTEST", "ANTHROPIC", "OPENAI", "VIRTUAL_ENV"))
        }
        environment.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **env)
        return subprocess.run(
            [str(self.python), "-m", "pytest", "-p", "no:cacheprovider",
             "--rag-dataset=dataset.json", "--rag-target=app:answer"],
            cwd=project, env=environment, capture_output=True, text=True, check=False,
        )  # fmt: skip


INSTALLS = {  # name: (extras, PyTorch's CPU wheel installed first, as the docs say)
    "plain": ("", False),
    "anthropic": ("anthropic", False),
    "local": ("local", True),
    "all": ("local,anthropic,sentence-transformers", True),
    "pdf": ("pdf", False),
}


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> dict[str, Venv]:
    """The installs, built side by side. What each needs and this test environment
    holds is linked in first (:func:`link_requirements`), so pip finds it satisfied and
    installs the package (and anything else missing) itself."""

    def build(name: str) -> Venv:
        extras, torch = INSTALLS[name]
        path = tmp_path_factory.mktemp(f"venv-{name}")
        _run([sys.executable, "-m", "venv", "--without-pip", str(path)])
        venv = Venv(path)
        requirement = f"{wheel}[{extras}]" if extras else str(wheel)
        link_requirements(path, [TORCH] if torch else [], Path(requirement))
        if torch:
            venv.pip(TORCH)
        venv.pip(requirement)
        return venv

    with ThreadPoolExecutor(len(INSTALLS)) as pool:
        built = {name: pool.submit(build, name) for name in INSTALLS}
        return {name: future.result() for name, future in built.items()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    return tmp_path


class AlwaysSupported(FakeLLMServer):
    """The Messages API answering every request with a supported statement."""

    def _next(self, request: LoggedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
        return anthropic_tool(
            {"statements": [{"statement": "s", "verdict": "supported", "reason": "stated"}]}
        )


@pytest.fixture
def messages_api() -> Iterator[FakeLLMServer]:
    server = AlwaysSupported().start()
    try:
        yield server
    finally:
        server.stop()


def output(proc: subprocess.CompletedProcess[str]) -> str:
    text = proc.stdout + proc.stderr
    assert "INTERNALERROR" not in text, text
    return text


def assert_fatal_naming(proc: subprocess.CompletedProcess[str], command: str) -> None:
    text = output(proc)
    assert proc.returncode == 3, text
    assert command in text, text
    assert "Traceback" not in text and "ModuleNotFoundError" not in text, text
    assert KEY not in text


def test_plain_install_runs_a_retrieval_only_suite(venvs: dict[str, Venv], project: Path) -> None:
    proc = venvs["plain"].pytest(project, RETRIEVAL, DEFAULT_CASES[:2])
    assert proc.returncode == 0, output(proc)
    assert "2 passed" in proc.stdout
    # The HTML report's templates are in the wheel: the page is written, with its verdict.
    assert "could not write" not in proc.stdout, proc.stdout
    page = (project / "results" / "eval_report.html").read_text(encoding="utf-8")
    assert "RAG evaluation passed: exit 0" in page


def test_plain_install_stops_a_judged_suite_naming_the_local_extra(
    venvs: dict[str, Venv], project: Path
) -> None:
    proc = venvs["plain"].pytest(project, JUDGED, JUDGED_CASES)
    assert_fatal_naming(proc, LOCAL_INSTALL)


def test_local_install_judges_offline(venvs: dict[str, Venv], project: Path) -> None:
    proc = venvs["local"].pytest(project, JUDGED, JUDGED_CASES)
    assert proc.returncode == 0, output(proc)
    assert "judge local (all-MiniLM-L6-v2 + rules)" in proc.stdout and "1 passed" in proc.stdout


def test_local_install_with_an_anthropic_key_names_the_anthropic_extra(
    venvs: dict[str, Venv], project: Path
) -> None:
    proc = venvs["local"].pytest(project, JUDGED, JUDGED_CASES, ANTHROPIC_API_KEY=KEY)
    assert_fatal_naming(proc, ANTHROPIC_INSTALL)


def test_anthropic_install_judges_with_a_key(
    venvs: dict[str, Venv], project: Path, messages_api: FakeLLMServer
) -> None:
    proc = venvs["anthropic"].pytest(
        project, JUDGED, JUDGED_CASES, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=messages_api.url
    )
    assert proc.returncode == 0, output(proc)
    assert "judge anthropic" in proc.stdout and "1 passed" in proc.stdout
    assert messages_api.count("/v1/messages") >= 1


def test_full_install_judges_offline_and_with_a_key(
    venvs: dict[str, Venv], project: Path, messages_api: FakeLLMServer
) -> None:
    offline = venvs["all"].pytest(project, JUDGED, JUDGED_CASES)
    assert offline.returncode == 0, output(offline)
    assert "judge local" in offline.stdout
    keyed = venvs["all"].pytest(
        project, JUDGED, JUDGED_CASES, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=messages_api.url
    )
    assert keyed.returncode == 0, output(keyed)
    assert "judge anthropic" in keyed.stdout
    retrieval = venvs["all"].pytest(project, RETRIEVAL, DEFAULT_CASES[:2])
    assert retrieval.returncode == 0, output(retrieval)


def generate(venv: Venv, project: Path) -> subprocess.CompletedProcess[str]:
    """``rag-eval generate`` of a PDF with text, as a user runs it from the venv."""
    (project / "manual.pdf").write_bytes(pdf_bytes("The warranty covers parts for 2 years."))
    return subprocess.run(
        [str(venv.path / "bin" / "rag-eval"), "generate", "manual.pdf", "--output", "set.json"],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_plain_install_generating_from_a_pdf_names_the_pdf_extra_once(
    venvs: dict[str, Venv], project: Path
) -> None:
    proc = generate(venvs["plain"], project)
    assert proc.returncode == 3, output(proc)
    assert output(proc).count("pip install 'rag-eval-pytest[pdf]'") == 1, output(proc)
    assert "Traceback" not in output(proc) and not (project / "set.json").exists()


def test_pdf_install_generates_a_test_set_from_a_pdf(venvs: dict[str, Venv], project: Path) -> None:
    proc = generate(venvs["pdf"], project)
    assert proc.returncode == 0, output(proc)
    cases = json.loads((project / "set.json").read_text(encoding="utf-8"))["test_cases"]
    assert cases and all(c["expected_contexts"] == ["manual.pdf"] for c in cases)
