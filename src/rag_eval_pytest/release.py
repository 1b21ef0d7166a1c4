"""The release of rag-eval-pytest that is running: what the reports, the merged reports and
the generated datasets say wrote them."""

from __future__ import annotations


def package_version() -> str:
    """The installed package's version (``0+unknown`` when run from a source tree that is
    not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rag-eval-pytest")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"
