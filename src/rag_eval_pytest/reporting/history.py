"""One ``results.jsonl`` line per run, built from the report document."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path


def history_entry(doc: dict[str, Any]) -> dict[str, Any]:
    run, summary = doc["run"], doc["summary"]
    counts = summary["counts"]
    return {
        "timestamp": run["finished_at"],
        "run_id": run["id"],
        "composite_score": summary["composite"]["score"],
        "metrics": {name: m["mean"] for name, m in summary["metrics"].items()},
        "test_count": counts["cases"],
        "passed": counts["passed"],
        "failures": counts["failed"],
        "errors": counts["errors"],
        "skipped": counts["skipped"],
        "critical_failures": len(summary["critical"]["failed"]),
        "exit_code": run["exit_code"],
        "partial": run["partial"],
        "adapter": run["adapter"],
        "judge": run["judge"],
        "judge_calls": summary["usage"]["judge_calls"],
        "cost_usd": summary["usage"]["cost_usd"],
        "git_commit": run["git_commit"],
        "datasets": [d["path"] for d in run["datasets"]],
        "schema_version": doc["schema_version"],
    }


def git_commit(cwd: Path) -> str | None:
    """The commit under test: from CI variables, else ``git rev-parse HEAD``, else None."""
    for name in ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILD_VCS_NUMBER", "GIT_COMMIT"):
        value = os.environ.get(name)
        if value:
            return value
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and sha else None
