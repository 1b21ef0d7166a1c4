"""Whether a question of a conversation leans on the one before it.

"And for business accounts?", "What about students?", "How long is it valid?" mean something
only after the earlier question; "Do you ship to Canada?" is complete by itself. A judge
reads a follow-up after the question it leans on and a complete question alone: reading every
question after all the earlier ones would score an answer to a new topic against the old
ones too.

The rule, from the question's own words (English only): it opens with a connective ("and",
"but", "also", "what about", "how about", "then", "so"), or it refers back with a pronoun or
a demonstrative ("it", "they", "that", "those", "one", ...), or it has at most one content
word ("Why?", "How quickly?"). A question that names its subject is complete ("Do you ship to
Canada?", "Is there a discount for students?"), even when it follows another on a nearby
topic: its answer is judged against it alone.
"""

from __future__ import annotations

import re

from .words import content_words

_OPENERS = re.compile(
    r"^\s*(and|but|also|then|so|or|plus|what about|how about|what if|same for|and if)\b",
    re.IGNORECASE,
)
_BACK = re.compile(
    r"\b(it|its|it's|they|them|their|theirs|that|those|these|this|he|she|him|her|his|"
    r"one|ones|former|latter|same|else)\b",
    re.IGNORECASE,
)
_FEW_WORDS = 1


def is_follow_up(question: str) -> bool:
    """Whether ``question`` leans on the conversation's earlier question (module docstring)."""
    if _OPENERS.search(question) or _BACK.search(question):
        return True
    return len(content_words(question)) <= _FEW_WORDS


def in_context(question: str, earlier: list[str]) -> str:
    """``question`` as the user meant it: after the earlier questions it leans on (back to the
    latest complete one), oldest first, one per line; alone when it is complete."""
    leaned: list[str] = []
    current = question
    for previous in reversed(earlier):
        if not is_follow_up(current):
            break
        leaned.insert(0, previous)
        current = previous
    return "\n".join([*leaned, question])
