"""The run's warnings go through pytest's configure-time warnings: listed in the summary by
default, silenced by an ``ignore`` filter, printed in the header under a blanket ``error``
filter (a dataset that ages must not crash a strict suite), and fatal only under a filter
that names RagEvalWarning itself. pytest's own ``issue_config_time_warning`` applies the
filters; the config around it is a stand-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_eval_pytest.errors import ConfigError, RagEvalWarning
from rag_eval_pytest.pytest_support.notices import IGNORE_FILTER, issue
from tests.unit.pytest_support.fakes import Config

AGED = "dataset qa.json is 45 days old"
NAMED = "error::rag_eval_pytest.RagEvalWarning"


def config(tmp_path: Path, *filters: str, cmdline: list[str] | None = None) -> Config:
    made = Config(tmp_path, ini={"filterwarnings": list(filters)})
    made.known_args_namespace.pythonwarnings = cmdline
    return made


def test_without_filters_each_message_is_a_warning_in_pytests_summary(tmp_path: Path) -> None:
    made = config(tmp_path)
    assert issue(made, [AGED, "deprecated key converted"]) == []
    assert [str(r.message) for r in made.recorded] == [AGED, "deprecated key converted"]
    assert all(r.category is RagEvalWarning for r in made.recorded)


def test_an_ignore_filter_silences_them(tmp_path: Path) -> None:
    made = config(tmp_path, "error", IGNORE_FILTER)  # the later filter wins, as in pytest
    assert issue(made, [AGED]) == []
    assert made.recorded == []


@pytest.mark.parametrize("blanket", ["error", "error::pytest.PytestWarning", "error::Warning"])
def test_a_blanket_error_filter_puts_them_in_the_header_instead(
    tmp_path: Path, blanket: str
) -> None:
    lines = issue(config(tmp_path, blanket), [AGED])
    assert lines == [
        f"rag-eval: warning: {AGED} (RagEvalWarning, shown here because a warnings filter "
        f"makes warnings errors; '{IGNORE_FILTER}' silences it)"
    ]


def test_a_filter_naming_ragevalwarning_as_an_error_makes_them_fatal(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        issue(config(tmp_path, NAMED), [AGED])
    assert str(raised.value) == (
        f"{AGED} (a warnings filter makes RagEvalWarning an error; '{IGNORE_FILTER}' silences it)"
    )


def test_a_command_line_filter_counts_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=AGED):
        issue(config(tmp_path, "default", cmdline=[NAMED]), [AGED])


def test_a_later_filter_that_lets_them_through_wins_over_the_naming_one(tmp_path: Path) -> None:
    made = config(tmp_path, NAMED, "default::rag_eval_pytest.RagEvalWarning")
    assert issue(made, [AGED]) == []
    assert len(made.recorded) == 1
