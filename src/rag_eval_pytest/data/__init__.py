"""The case and dataset model: loading datasets, the adapter's response, sharding."""

from __future__ import annotations
