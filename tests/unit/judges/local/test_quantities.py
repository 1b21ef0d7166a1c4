"""Numbers as the local judge reads them, with what each counts."""

from __future__ import annotations

from rag_eval_pytest.judges.local.quantities import Quantity, quantities


def test_a_number_word_joined_to_what_it_counts_is_a_number() -> None:
    assert quantities("a three-point advantage") == [Quantity(3.0, "point", "three point")]
    assert quantities("twenty-five days") == [Quantity(25.0, "day", "twenty-five days")]
    assert quantities("a one-off fee") == []
