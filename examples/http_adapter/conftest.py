"""The HTTP adapter against the demo app served on 127.0.0.1.

Run ``pytest`` from this folder (pytest.ini names the dataset). In your project you would
not start the server here: point ``--rag-endpoint`` (or ``http.endpoint`` in the config) at
your running RAG service, and delete this conftest.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from demo_rag.server import start

from rag_eval_pytest.adapters.http import HttpAdapter


@pytest.fixture(scope="session")
def rag_adapter() -> Iterator[HttpAdapter]:
    server = start()  # 127.0.0.1, a free port
    host, port = server.server_address[:2]
    try:
        yield HttpAdapter(
            f"http://{host!s}:{port}/query",
            body={"question": "{question}"},
            answer="data.answer",
            contexts="data.documents[*].text",
            sources="data.documents[*].source",
            timeout=10,
        )
    finally:
        server.shutdown()
        server.server_close()
