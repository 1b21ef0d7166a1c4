"""A small RAG app to try rag-eval-pytest on: a retriever over a handful of Markdown
documents and an answer composed from the passages it retrieved.

It is deliberately imperfect, so that its evaluation report shows real findings: the
retriever ranks by word overlap (it misses paraphrases), and the answer composer adds a
sentence of its own for some topics (an unsupported claim), and in a conversation it reads a
follow-up with the previous question only when the follow-up opens with "And" or "What
about" (it misses "How long is it valid?").
"""

from __future__ import annotations

from .app import DemoRag, answer, chat, retrieve

__all__ = ["DemoRag", "answer", "chat", "retrieve"]
