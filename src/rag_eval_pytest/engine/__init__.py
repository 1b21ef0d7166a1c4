"""The run engine: the session of one process, prefetch, the ``RagCase``, assertions, zero-code."""

from __future__ import annotations
