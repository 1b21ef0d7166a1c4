"""A deterministic stand-in for an LLM: a ``prompt -> text`` callable that reads the rendered
prompt like a model would (the task text, the delimited sections) and answers in JSON by word
overlap. Used as a custom judge, it exercises the whole judge path: prompting, parsing,
checking, voting, caching and the metrics built on top.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from typing import Any

from rag_eval_pytest.judges.callable import CallableJudge
from rag_eval_pytest.judges.questions import GeneratedQuestions
from rag_eval_pytest.text.sentences import split_sentences

_SECTION = re.compile(r'<data section="([\w ]+)" id="(\w+)"[^>]*>\n(.*?)\n</data id="\2">', re.S)
_ITEM = re.compile(r'<item index="(\d+)" id="(\w+)">\n(.*?)\n</item id="\2">', re.S)
_STOP = {"what", "which", "when", "where", "does", "have", "with", "that", "this", "from", "your"}

calls: list[str] = []
"""Every prompt received, in order (tests count judge calls with it)."""

CONFTEST = """
import pytest
from tests.word_judge import word_judge

@pytest.fixture(scope="session")
def rag_judge():
    return word_judge
"""
"""An inner run's conftest.py whose ``rag_judge`` is :func:`word_judge`."""


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3 and w not in _STOP}


def overlap(claim: str, evidence: str) -> float:
    claimed = words(claim)
    return len(claimed & words(evidence)) / len(claimed) if claimed else 0.0


def sections(prompt: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, _, body in _SECTION.findall(prompt):
        items = _ITEM.findall(body)
        found[name.replace(" ", "_")] = [text for _, _, text in items] if items else body
    return found


_BUNDLE = re.compile(r"^## Task (\d+) \(\w+\)\n(.*?)(?=\n\n## Task \d+ \(|\Z)", re.M | re.S)
_BUNDLED_SECTION = re.compile(
    r'(<data section=")TASK (\d+) ([\w ]+)(" id="\w+"[^>]*>\n.*?\n</data id="\w+">)', re.S
)


def tasks_of(prompt: str) -> list[str] | None:
    """The prompt of each task of a bundle (several questions asked in one request: task K's
    instructions, its parameters and its data sections named ``TASK K ...``), each as a
    prompt of its own; ``None`` for a prompt of one task."""
    task, _, data = prompt.partition("# Data")
    found = _BUNDLE.findall(task.split("# Parameters", 1)[0])
    if "This request holds" not in task or not found:
        return None
    parameters = task.split("# Parameters", 1)[1] if "# Parameters" in task else ""
    prompts = []
    for k, instructions in found:
        own = [m for m in _BUNDLED_SECTION.finditer(data) if m.group(2) == k]
        lines = [ln.replace(f"- task {k} ", "- ") for ln in parameters.splitlines()]
        mine = "\n".join(ln for ln in lines if ln.startswith("- ") and "- task " not in ln)
        parts = [m.group(1) + m.group(3) + m.group(4) for m in own]
        prompts.append(f"# Task\n{instructions}\n{mine}\n# Data\n" + "\n\n".join(parts))
    return prompts


def answered(prompt: str, one: Any) -> str:
    """``one``'s answer to the prompt, or to each task of a bundle, as a model's reply."""
    prompts = tasks_of(prompt)
    if prompts is None:
        answer = one(prompt)
    else:
        answer = {f"task_{k}": one(p) for k, p in enumerate(prompts, 1)}
    return "Here is my evaluation:\n```json\n" + json.dumps(answer) + "\n```"


def word_judge(prompt: str) -> str:
    calls.append(prompt)
    return answered(prompt, _answer)


def _answer(prompt: str) -> dict[str, Any]:
    data = sections(prompt)
    task = prompt.split("# Data", 1)[0]
    answer: dict[str, Any]
    if "Break the ANSWER into standalone statements" in task:
        contexts = " ".join(data["CONTEXTS"])
        statements = [] if "don't know" in data["ANSWER"] else split_sentences(data["ANSWER"])
        answer = {
            "statements": [
                {
                    "statement": s,
                    "verdict": "supported" if overlap(s, contexts) >= 0.7 else "unsupported",
                    "reason": f"{overlap(s, contexts):.0%} of its words are in the contexts",
                }
                for s in statements
            ]
        }
    elif "Write questions that the ANSWER answers" in task:
        text = data["ANSWER"]
        answer = {
            "questions": [f"What about {s}" for s in split_sentences(text)][:3],
            "noncommittal": "don't know" in text,
        }
    elif "Rate from 0 to 1" in task:
        answer = {
            "score": round(overlap(data["QUESTION"], data["ANSWER"]), 3),
            "noncommittal": "don't know" in data["ANSWER"],
            "reason": "word overlap",
        }
    elif "decide whether it was useful" in task:
        answer = {
            "verdicts": [
                {"index": i, "useful": overlap(data["GROUND_TRUTH"], c) >= 0.5, "reason": "overlap"}
                for i, c in enumerate(data["CONTEXTS"])
            ]
        }
    elif "sentence of the GROUND TRUTH" in task:
        contexts = " ".join(data["CONTEXTS"])
        answer = {
            "sentences": [
                {"index": i, "attributed": overlap(s, contexts) >= 0.7, "reason": "overlap"}
                for i, s in enumerate(data["GROUND_TRUTH_SENTENCES"])
            ]
        }
    elif "sentence of the CONTEXT SENTENCES" in task:
        answer = {
            "sentences": [
                {"index": i, "relevant": overlap(data["QUESTION"], s) > 0}
                for i, s in enumerate(data["CONTEXT_SENTENCES"])
            ]
        }
    elif "Compare the ANSWER with the GROUND TRUTH" in task:
        truth, said = split_sentences(data["GROUND_TRUTH"]), data["ANSWER"]
        matching = [s for s in truth if overlap(s, said) >= 0.7]
        missing = [s for s in truth if s not in matching]
        wrong = [s for s in split_sentences(said) if overlap(s, data["GROUND_TRUTH"]) < 0.5]
        answer = {
            "same_information": not missing and not wrong,
            "matching_facts": matching,
            "missing_facts": missing,
            "wrong_or_extra_facts": wrong,
        }
    elif "meets the criterion given under" in task:
        # The criterion names a word in single quotes that the answer must contain.
        criterion = json.loads(task.split("- criterion: ", 1)[1].splitlines()[0])
        word = criterion.split("'")[1].lower()
        said = data["ANSWER"]
        meets = word in said.lower()
        answer = {
            "meets": "fully" if meets else "not at all",
            "violations": [] if meets else split_sentences(said)[:1],
            "reason": f"the answer {'says' if meets else 'never says'} {word!r}",
        }
    elif "The FACTS are what the user said earlier" in task:
        # A fact is contradicted by an answer about it that gives none of its numbers but
        # another, asked again by a question of the answer made of its words.
        said = data["ANSWER"]
        verdicts = []
        for i, fact in enumerate(data["FACTS"]):
            given, stated = set(re.findall(r"\d+", fact)), set(re.findall(r"\d+", said))
            questions = [s for s in split_sentences(said) if s.endswith("?")]
            asked = [s for s in questions if overlap(s, fact) >= 0.5]
            if given and stated and not given & stated and overlap(fact, said) > 0:
                verdict, why = "contradicted", f"the answer gives {sorted(stated)[0]}"
            elif asked:
                verdict, why = "asked again", f"the answer asks {asked[0]!r}"
            else:
                verdict, why = "kept", "consistent"
            verdicts.append({"index": i, "verdict": verdict, "reason": why})
        answer = {"facts": verdicts}
    else:  # pragma: no cover - a new question the stand-in does not know yet
        raise AssertionError(f"word_judge does not know this task: {task[:200]}")
    return answer


def three_way(prompt: str) -> str:
    """:func:`word_judge` with the three verdicts of a judge that tells a contradiction from
    silence: a statement it does not find supported is ``contradicted`` when it says "never"
    of what the contexts say, else ``not mentioned``."""
    calls.append(prompt)
    return answered(prompt, _three_way)


def _three_way(prompt: str) -> dict[str, Any]:
    answer = _answer(prompt)
    if "Break the ANSWER into standalone statements" not in prompt.split("# Data", 1)[0]:
        return answer
    contexts = " ".join(sections(prompt)["CONTEXTS"])
    for item in answer["statements"]:
        if item["verdict"] == "unsupported":
            statement = item["statement"]
            denied = (
                "never" in words(statement)
                and overlap(statement.replace("never", ""), contexts) >= 0.5
            )
            item["verdict"] = "contradicted" if denied else "not mentioned"
    return answer


def word_vectors(texts: list[str]) -> list[list[float]]:
    """Unit vectors of the texts' word counts (hashed into 256 dimensions): texts with the
    same words are alike, texts without a word in common are orthogonal."""
    vectors = []
    for text in texts:
        vector = [0.0] * 256
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            if word in words(word):
                vector[zlib.crc32(word.encode()) % 256] += 1.0
        if not any(vector):
            vector[0] = 1.0
        norm = math.sqrt(sum(x * x for x in vector))
        vectors.append([x / norm for x in vector])
    return vectors


class WordJudge(CallableJudge):
    """A custom judge of a ``prompt -> text`` function of this module, with
    :func:`word_vectors` as its embeddings (no model to load), that rates an answer's
    relevance directly: the share of the question's words it has."""

    def supports(self, question: type[Any]) -> bool:
        return question is not GeneratedQuestions

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return word_vectors(texts)
