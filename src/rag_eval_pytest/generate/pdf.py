"""The text of a PDF document, page by page, through ``pypdf`` (the ``pdf`` extra).

A PDF whose pages hold no text (a scan: its pages are images) is refused by name, as is one
``pypdf`` cannot read (damaged, encrypted).
"""

from __future__ import annotations

import io
import logging

from ..errors import DocumentError


def pdf_text(name: str, data: bytes) -> str:
    """The text of each page of the PDF ``data``, pages apart as paragraphs."""
    pages = _pages(name, data)
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise DocumentError(
            f"{name}: a PDF without text ({len(pages)} pages, none with text: a scan? run it "
            "through OCR first)"
        )
    return text


def _pages(name: str, data: bytes) -> list[str]:
    """Each page's text; a PDF ``pypdf`` cannot read, or one with a password, refused."""
    import pypdf
    from pypdf.errors import PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about damaged files
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentError(f"{name}: an encrypted PDF; save it without a password")
        return [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise DocumentError(f"{name}: not a readable PDF ({exc})") from None
