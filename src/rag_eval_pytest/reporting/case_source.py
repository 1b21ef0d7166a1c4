"""The cases a renderer reads, one at a time: from a report in memory (:class:`ListCases`), or
from disk (the run's spool, :class:`~.spool.CaseSpool`; a report file,
:class:`~.report_file.FileCases`).

A renderer that holds every case of a run of 50,000 cases at once holds gigabytes: each one
asks a :class:`CaseSource` for the cases of each of its sections instead (the failing cases,
then the others, ...), and what it needs to choose them without reading them is each case's
:class:`CaseMark` (its key, status, criticality, cause), which a source keeps in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .models import CaseResult

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

FAILING = ("failed", "error")


class CaseMark(NamedTuple):
    """What a renderer knows of a case without reading it."""

    key: str
    status: str
    critical: bool
    cause: str | None
    not_judged: bool
    """A metric of the case was not judged."""

    @classmethod
    def of(cls, case: CaseResult) -> CaseMark:
        not_judged = any(r.status == "not_judged" for r in case.metrics.values())
        return cls(case.key, case.status, case.critical, case.failure_cause, not_judged)

    @classmethod
    def of_json(cls, case: Mapping[str, Any]) -> CaseMark:
        """The mark of a case as JSON (a report's, as written)."""
        metrics = case.get("metrics") or {}
        not_judged = any(
            isinstance(r, dict) and r.get("status") == "not_judged" for r in metrics.values()
        )
        return cls(
            str(case.get("key")),
            str(case.get("status")),
            case.get("critical") is True,
            case.get("failure_cause"),
            not_judged,
        )

    @property
    def failing(self) -> bool:
        return self.status in FAILING


class CaseSource(Protocol):
    """A run's cases in report order, read again for each section that shows them."""

    def __len__(self) -> int: ...

    def marks(self) -> Sequence[CaseMark]:
        """Every case's mark, in report order."""
        ...

    def read(self, keep: Callable[[CaseMark], bool] | None = None) -> Iterator[CaseResult]:
        """The cases whose mark ``keep`` accepts (every case without it), in report order,
        each read when asked for."""
        ...


class ListCases:
    """The cases of a report in memory (:attr:`~.models.Report.cases`)."""

    def __init__(self, cases: Sequence[CaseResult] = ()) -> None:
        self.cases = list(cases)
        self._marks = [CaseMark.of(case) for case in cases]

    def __len__(self) -> int:
        return len(self.cases)

    def marks(self) -> Sequence[CaseMark]:
        return self._marks

    def read(self, keep: Callable[[CaseMark], bool] | None = None) -> Iterator[CaseResult]:
        for case, mark in zip(self.cases, self._marks, strict=True):
            if keep is None or keep(mark):
                yield case

    @property
    def order(self) -> list[tuple[int, str]]:
        """Each case's index and key."""
        return [(case.index, case.key) for case in self.cases]

    def at(self, n: int) -> CaseResult:
        return self.cases[n]

    def add(self, written: Mapping[str, Any], shown: Mapping[str, Any] | None = None) -> None:
        """A case, as :meth:`~.spool.CaseSpool.add` takes it (kept as the renderers show it)."""
        case = CaseResult.model_validate(written if shown is None else shown)
        self.cases.append(case)
        self._marks.append(CaseMark.of(case))

    def close(self) -> None:
        pass


def failing(mark: CaseMark) -> bool:
    """A case that failed or errored."""
    return mark.failing


def not_failing(mark: CaseMark) -> bool:
    return not mark.failing
