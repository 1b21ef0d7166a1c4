"""Reports: the JSON document, its Markdown and terminal renderings, and the history line."""

from __future__ import annotations
