"""The pytest-facing glue: start-up, hook guard, xdist roles, termination, notices, dry run.

Imported only by the entry module (:mod:`rag_eval_pytest.plugin`).
"""

from __future__ import annotations
