"""``rag-eval generate``: a test set from the user's own documents.

The documents are read (:mod:`.documents`: Markdown, plain text, HTML, PDF, JSONL rows of
``{text, source}``) and split into chunks with stable ids (:mod:`.chunking`); cases are
made from the chunks by the offline extractive generator (:mod:`.extractive`) or by an LLM
judge that writes questions of several kinds and checks each against its source chunks
(:mod:`.llm`); near-duplicates are dropped (:mod:`.dedup`) and the cases become a dataset
the plugin runs as it is (:mod:`.output`). :mod:`.command` runs the whole command; ``cli.py``
only parses its arguments.
"""

from __future__ import annotations
