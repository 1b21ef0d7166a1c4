"""Adapter modules import no framework until an adapter is built or queried."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import rag_eval_pytest.plugin
import rag_eval_pytest.adapters.factory, rag_eval_pytest.adapters.http
import rag_eval_pytest.adapters.langchain, rag_eval_pytest.adapters.llamaindex
heavy = [m for m in ("httpx", "langchain_core", "llama_index") if m in sys.modules]
print(",".join(heavy) or "none")
"""


def test_adapter_modules_import_no_framework() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "none"
