"""``python -m demo_rag [PORT]``: serve the demo RAG app on 127.0.0.1 until Ctrl-C."""

from __future__ import annotations

import sys
import time

from .server import start


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
    server = start(port)
    host, bound = server.server_address[:2]
    print(f"demo RAG app on http://{host}:{bound}/query (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()
