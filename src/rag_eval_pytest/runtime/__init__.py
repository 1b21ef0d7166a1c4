"""Run-time services for every layer: background event loop, concurrency limiter, retry policy."""

from __future__ import annotations
