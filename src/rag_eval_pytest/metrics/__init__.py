"""Metrics: one module per metric, registered by name in :mod:`.registry`."""

from __future__ import annotations
