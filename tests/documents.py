"""A small documentation set for ``rag-eval generate``: Markdown, text and HTML documents a
support team might have, a minimal PDF writer, and a plain BM25 RAG app over the same
documents (for a generated dataset's run)."""

from __future__ import annotations

import zlib
from pathlib import Path

DOCS = {
    "billing/refunds.md": """# Refunds

Customers can request a full refund within 30 days of purchase. Refunds go back to the
original payment method within 5 business days.

## Gift cards

Digital gift cards cannot be refunded. A lost gift card can be replaced once per year.

## Disputes

A chargeback is a payment reversal requested through the customer's bank. Open a ticket
before filing a chargeback: the billing team answers within 48 hours.
""",
    "billing/plans.md": """# Plans

The Starter plan costs $12 per month and includes 3 seats. The Team plan costs $49 per
month and includes 20 seats.

## Discounts

Annual billing saves 15% on every plan. Nonprofits get a further discount of 30% on the
Team plan.
""",
    "accounts.md": """# Accounts

## Password reset

Click "Forgot password" on the login page. Follow the link sent by email. The link
expires after 2 hours.

## Two-factor authentication

Two-factor authentication is a second check at sign-in, with a code from an app. Admins
must turn it on before March 31 2027.
""",
    "shipping.txt": """Shipping

We ship to 40 countries from our warehouse in Rotterdam. Standard delivery takes 5
business days within the EU and 10 business days elsewhere.

Express delivery costs 15 euros and arrives within 2 business days. Orders placed before
2 pm leave the warehouse the same day.
""",
    "security.html": """<!doctype html>
<html><head><title>Security</title><style>.secret-style { color: red }</style>
<script>var trackingToken = "script-text-never-read";</script></head>
<body><h1>Security</h1>
<p>Customer data is encrypted at rest with AES-256 in the Frankfurt data centre.</p>
<h2>Incidents</h2>
<p>Security incidents must be reported to the security team within 24 hours.</p>
<script>console.log("more script text")</script>
</body></html>
""",
}


def write_documents(folder: Path, docs: dict[str, str] | None = None) -> Path:
    """The documents under ``folder`` (made); returns it."""
    for name, text in (DOCS if docs is None else docs).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def pdf_bytes(*pages: str) -> bytes:
    """A minimal PDF whose pages show ``pages`` (one line of Helvetica each; an empty
    string: a page without text)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode() if text else b""
        data = zlib.compress(stream)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            f"<< /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(
            f"<< /Length {len(data)} /Filter /FlateDecode >>\nstream\n".encode()
            + data
            + b"\nendstream"
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    out += trailer.encode()
    return bytes(out)


BM25_APP = '''
"""A plain RAG app: BM25 over the documents' paragraphs, the top 3 returned with their
document's path as the source."""
import math
import re
from pathlib import Path

ROOT = Path(__file__).parent
WORD = re.compile(r"[a-z0-9]+")
TAGS = r"<(script|style)[^>]*>.*?</\\1>|<[^>]+>"
CHUNKS = []
for path in sorted(ROOT.joinpath("docs").rglob("*")):
    if path.suffix in (".md", ".txt", ".html"):
        text = re.sub(TAGS, " ", path.read_text(), flags=re.S)
        for part in re.split(r"\\n\\s*\\n", text):
            if part.strip():
                CHUNKS.append((path.relative_to(ROOT).as_posix(), part.strip()))
DOCS = [WORD.findall(text.lower()) for _, text in CHUNKS]
AVERAGE = sum(map(len, DOCS)) / len(DOCS)
FREQ = {}
for words in DOCS:
    for word in set(words):
        FREQ[word] = FREQ.get(word, 0) + 1


def score(query, words, k1=1.5, b=0.75):
    total = 0.0
    for word in set(query):
        tf = words.count(word)
        if tf:
            idf = math.log(1 + (len(DOCS) - FREQ[word] + 0.5) / (FREQ[word] + 0.5))
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(words) / AVERAGE))
    return total


def answer(question):
    query = WORD.findall(question.lower())
    ranked = sorted(range(len(DOCS)), key=lambda i: -score(query, DOCS[i]))[:3]
    contexts = [{"text": CHUNKS[i][1], "source": CHUNKS[i][0]} for i in ranked]
    return contexts[0]["text"], contexts
'''
