"""Adapters: how the plugin reaches the RAG system under test (one module per kind)."""

from __future__ import annotations
