"""The CI examples in docs/ci.md work as written: their shell steps run here, in a fresh
virtual environment, against the example app, and do what the page says; the GitHub
workflow twice, its caches carried from one run to the next as ``actions/cache`` would, so
that the second run is compared with the first and finds the regression made between them.

Two substitutions only, both for this machine rather than for the steps: the package is
installed from this checkout's wheel (the steps clone its repository and install the clone:
this machine cannot reach it), and PyTorch's CPU wheel comes from pip's configured wheel
folder (the steps name PyTorch's CPU index, which this machine cannot reach either). No key
is set: the offline judge scores. The fresh environment already holds pip, PyTorch and the
other distributions the steps install, their files linked from this test environment's
install of the same versions (:mod:`tests.integration.venvs`): the documented ``pip
install`` lines find them satisfied, as on a runner that restores them from a cache, and
install the package. pip does not byte-compile what it installs (``PIP_NO_COMPILE``, as the
install matrix's ``--no-compile``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.venvs import checkout_wheel, link_requirements

REPO = Path(__file__).resolve().parents[3]
CI_DOC = REPO / "docs" / "ci.md"
EXAMPLES = REPO / "examples"
CRITICAL_EXIT = 2  # the example app fails a critical case on purpose
CLONE = (
    "git clone --depth 1 https://github.com/rag-eval-pytest/rag-eval-pytest /tmp/rag-eval-pytest"
)
CHECKOUT = "/tmp/rag-eval-pytest["  # the clone, installed with its extras
TORCH_INDEX = " --index-url https://download.pytorch.org/whl/cpu"
TORCH = "torch==2.13.0"
INSTALLED_EXTRAS = "local,anthropic"  # what the documented steps install

pytestmark = pytest.mark.slow


def yaml_blocks() -> list[Any]:
    text = CI_DOC.read_text(encoding="utf-8")
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def github_steps() -> list[dict[str, Any]]:
    (workflow,) = [b for b in yaml_blocks() if "jobs" in b]
    (job,) = workflow["jobs"].values()
    return [step for step in job["steps"] if "run" in step]


def gitlab_job() -> dict[str, Any]:
    (job,) = [b["rag-eval"] for b in yaml_blocks() if "rag-eval" in b]
    return dict(job)


def gitlab_script() -> list[str]:
    return list(gitlab_job()["script"])


def github_cached() -> list[str]:
    """The paths the workflow's caches restore and save, in order."""
    (workflow,) = [b for b in yaml_blocks() if "jobs" in b]
    (job,) = workflow["jobs"].values()
    caches = [s["with"] for s in job["steps"] if s.get("uses", "").startswith("actions/cache")]
    return [path for cache in caches for path in cache["path"].split()]


def carry(paths: list[str], source: Path, target: Path) -> None:
    """What a cache saved at the end of one job and restored at the start of the next."""
    for path in paths:
        if (source / path).is_dir():
            shutil.copytree(source / path, target / path)
        elif (source / path).is_file():
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / path, target / path)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return checkout_wheel(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="session")
def ci_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """One virtual environment for the session, with pip: the documented steps install into
    it. What they install and this test environment holds is linked in first, as a runner's
    restored cache would hold it."""
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    path = tmp_path_factory.mktemp("ci-venv") / "venv"
    venv.EnvBuilder(with_pip=False).create(path)
    link_requirements(path, ["pip", TORCH], Path(f"{wheel}[{INSTALLED_EXTRAS}]"))
    return path


def for_this_machine(command: str, wheel: Path) -> str:
    command = command.replace(CLONE, ": the checkout is installed from its wheel")
    return command.replace(CHECKOUT, f"{wheel}[").replace(TORCH_INDEX, "")


def new_project(tmp_path: Path, name: str = "project") -> Path:
    """A repository in the documented layout, holding the example suite and app."""
    project = tmp_path / name
    suite = project / "tests" / "rag"
    suite.mkdir(parents=True)
    for name in ("conftest.py", "test_demo_rag.py", "dataset.json"):
        shutil.copy(EXAMPLES / name, suite / name)
    shutil.copytree(EXAMPLES / "demo_rag", suite / "demo_rag")
    shutil.copy(EXAMPLES / "eval-config.yaml", project / "eval-config.yaml")
    (project / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    (project / "requirements.txt").write_text("")
    return project


def run_step(command: str, project: Path, ci_venv: Path, wheel: Path, env: dict[str, str]) -> int:
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "ANTHROPIC_", "OPENAI_", "PYTHON"))
    }
    environ.update(env)
    environ["PATH"] = f"{ci_venv / 'bin'}{os.pathsep}{environ.get('PATH', '')}"
    environ["VIRTUAL_ENV"] = str(ci_venv)
    environ["PIP_NO_COMPILE"] = "0"  # pip reads "0" as --no-compile given (a negative flag)
    done = subprocess.run(
        ["bash", "-e", "-c", for_this_machine(command, wheel)],
        cwd=project,
        env=environ,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode not in (0, CRITICAL_EXIT):
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
    return done.returncode


def test_the_github_workflow_runs_as_written(ci_venv: Path, wheel: Path, tmp_path: Path) -> None:
    project = new_project(tmp_path)
    step_summary = tmp_path / "step_summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(step_summary)}
    steps = {step["name"]: step["run"] for step in github_steps()}
    assert list(steps) == ["Install", "Evaluate"]
    assert TORCH in steps["Install"]
    assert CLONE in steps["Install"]  # as README.md installs it: not on the package index yet
    assert f'"{CHECKOUT}{INSTALLED_EXTRAS}]"' in steps["Install"]
    assert run_step(steps["Install"], project, ci_venv, wheel, env) == 0
    assert run_step(steps["Evaluate"], project, ci_venv, wheel, env) == CRITICAL_EXIT
    summary = step_summary.read_text(encoding="utf-8")
    assert summary.startswith("## RAG evaluation FAILED: exit 2, critical case")
    assert "- **tc_001** (critical): faithfulness" in summary
    results = project / "results"
    for name in ("eval_report.md", "eval_report.json", "eval_summary.md", "results.jsonl"):
        assert (results / name).is_file(), name
    assert (results / "eval_report.html").is_file()
    assert (results / "junit.xml").is_file()
    # What the documented caches keep: the judge cache, the history and the baselines.
    assert (project / ".pytest_cache").is_dir()
    assert (results / "eval_summary.md").read_text(encoding="utf-8") == summary
    first = json.loads((results / "eval_report.json").read_text(encoding="utf-8"))
    # The next job: a fresh checkout, the caches restored, and a regression since the first
    # run (the shipping document gone: tc_003 no longer finds it). Compared with the first
    # run, which the caches carried (with the history alone every run said "Not compared").
    second = new_project(tmp_path, "next-job")
    carry(github_cached(), project, second)
    (second / "tests" / "rag" / "demo_rag" / "docs" / "shipping.md").unlink()
    assert run_step(steps["Evaluate"], second, ci_venv, wheel, env) == CRITICAL_EXIT
    report = json.loads((second / "results" / "eval_report.json").read_text(encoding="utf-8"))
    comparison = report["comparison"]
    assert comparison["baseline"] == f"history: run {first['run']['id']}", comparison
    assert {(f["key"], f["metric"], f["regression"]) for f in comparison["newly_failing"]} >= {
        ("tc_003", "retrieval_recall", True)
    }
    summary = step_summary.read_text(encoding="utf-8")
    assert "> **Newly failing:** " in summary and "tc_003 retrieval_recall 1.00 → 0.00" in summary


def test_the_gitlab_job_runs_as_written(ci_venv: Path, wheel: Path, tmp_path: Path) -> None:
    project = new_project(tmp_path)
    *install, evaluate = gitlab_script()
    # It caches what the GitHub workflow's caches carry to the next run (the test above).
    cached = [path for cache in gitlab_job()["cache"] for path in cache["paths"]]
    assert [path.rstrip("/") for path in cached] == [p.rstrip("/") for p in github_cached()]
    for line in install:
        assert run_step(line, project, ci_venv, wheel, {}) == 0, line
    assert run_step(evaluate, project, ci_venv, wheel, {}) == CRITICAL_EXIT
    assert (project / "results" / "eval_summary.md").is_file()
    assert (project / "results" / "junit.xml").is_file()
