"""A LlamaIndex query engine over the demo documents.

Built on llama-index-core's mock embeddings and mock LLM so it runs offline; swap in real
ones (`Settings.embed_model`, `Settings.llm`) and the plugin evaluates it the same way.
"""

from __future__ import annotations

from demo_rag.app import DOCS_DIR
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM

documents = [
    Document(text=path.read_text(encoding="utf-8"), metadata={"file_name": path.name})
    for path in sorted(DOCS_DIR.glob("*.md"))
]
index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=16))
query_engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=2)
