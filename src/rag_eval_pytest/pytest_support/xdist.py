"""pytest-xdist integration, registered only when xdist is active (its hooks do not exist
otherwise). Runs in the controller: gives every worker the controller's run identity, so
all processes agree on the run id and start time."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .bootstrap import WORKER_RUN_KEY

if TYPE_CHECKING:
    from ..reporting.payload import RunInfo


class XdistHooks:
    """Holds only the run identity: pytest keeps every registered plugin object until the
    process ends (``pytest_plugin_registered`` is a historic hook)."""

    def __init__(self, run: RunInfo) -> None:
        self.run = run

    def pytest_configure_node(self, node: Any) -> None:
        """Controller: send the run identity to a starting worker."""
        node.workerinput[WORKER_RUN_KEY] = dataclasses.asdict(self.run)
