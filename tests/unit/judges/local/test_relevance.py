"""What an answer gives for what its question asks, and a context sentence's relevance score as
the report shows it: the threshold at one half, and a sentence that answers the question by
the rule."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.relevance import SentenceScore, expected_type_found


def test_a_sentence_score_shows_the_relevance_threshold_as_one_half() -> None:
    assert SentenceScore(0.65, answers=False).shown(0.65) == 0.5
    assert SentenceScore(0.30, answers=False).shown(0.60) == 0.25
    assert SentenceScore(0.80, answers=False).shown(0.60) == 0.75
    assert not SentenceScore(0.30, answers=False).relevant(0.60)
    # A sentence that answers the question by the rule is relevant and shown at the cut.
    assert SentenceScore(0.30, answers=True).relevant(0.60)
    assert SentenceScore(0.30, answers=True).shown(0.60) == 0.5


PLATFORM = "Which platform does the Leeds train leave from?"
DECLINED = "Why was my card declined?"
DEADLINE = "When is the deadline for tax returns?"
SPRING = "When does the spring term start?"
SEATS = "How many seats does a Boeing 737 have?"
MOVED = "When is the 3 pm meeting moved to?"
LIMIT = "What is the daily limit for ATM withdrawals?"
FOUNDED = "Who founded the company?"
DELAYED = "Why are trains delayed today?"
ENCRYPTED = "How is the data encrypted?"
DELIVERED = "How are parcels delivered?"


@pytest.mark.parametrize(
    ("question", "answer", "found"),
    [
        # "which X": a label or a new name; "Leeds" is the question's name, not the platform.
        (PLATFORM, "The Leeds train leaves from platform 4.", 1.0),
        (PLATFORM, "It leaves from the usual platform.", 0.5),
        (PLATFORM, "The Leeds train leaves from the usual platform.", 0.5),
        ("Which gate does the Oslo flight leave from?", "It leaves from gate B.", 1.0),
        ("Which floor is the clinic on?", "On the third floor.", 1.0),
        # A reason in words that fit any question is no cause.
        (DECLINED, "Your card was declined because it has expired.", 1.0),
        (DECLINED, "Your card was declined for a reason.", 0.0),
        (DECLINED, "It was declined for various reasons.", 0.0),
        # A time given by another, or a time word of the question's, is no time.
        (DEADLINE, "The deadline for tax returns is 31 January.", 1.0),
        (DEADLINE, "The deadline is the same as last year.", 0.0),
        ("When did you move?", "We moved last year.", 1.0),
        (SPRING, "The spring term starts as usual.", 0.0),
        (SPRING, "The spring term starts on 8 January.", 1.0),
        ("When is the shop open?", "The shop opens in spring.", 1.0),
        # A number or a time the question gives is not what it asks for.
        (SEATS, "A Boeing 737 has a lot of seats.", 0.0),
        (SEATS, "A Boeing 737 has about 160 seats.", 1.0),
        (MOVED, "The 3 pm meeting has been moved.", 0.0),
        (MOVED, "The 3 pm meeting has been moved to 4 pm.", 1.0),
        (LIMIT, "The daily limit is set daily.", 0.0),
        (LIMIT, "The daily limit is $500.", 1.0),
        # People named by nouns that fit anyone answer no "who".
        (FOUNDED, "The company was founded by two people.", 0.0),
        (FOUNDED, "The company was founded by a group of friends.", 0.0),
        (FOUNDED, "The company was founded by a colleague.", 0.0),
        (FOUNDED, "The company was founded by two engineers.", 1.0),
        (FOUNDED, "It was founded by the research team.", 1.0),
        # A cause or a means in the question's own words, or in words that fit any.
        (DELAYED, "Trains are delayed today because of the delays.", 0.0),
        (DELAYED, "Trains are delayed because of a signal failure.", 1.0),
        (ENCRYPTED, "The data is encrypted with encryption.", 0.0),
        (ENCRYPTED, "It is encrypted using an encryption method.", 0.0),
        (ENCRYPTED, "The data is encrypted with AES-256.", 1.0),
        (DELIVERED, "Parcels are delivered by a delivery service.", 0.0),
        (DELIVERED, "Parcels are delivered by DHL.", 1.0),
        # A label is no amount.
        ("What is the return window?", "It is explained in section 4 of our policy.", 0.0),
        ("What is the return window?", "The return window is listed on page 2.", 0.0),
        ("What is the return window?", "The return window is 30 days.", 1.0),
        ("How old is the house?", "Its age is given in paragraph 3.", 0.0),
        # A number of each one is no count of them.
        ("How many rooms does the hotel have?", "It has rooms for 2 people each.", 0.0),
        ("How many rooms does the hotel have?", "The hotel has 120 rooms.", 1.0),
    ],
)
def test_what_an_answer_gives_for_what_its_question_asks(
    question: str, answer: str, found: float
) -> None:
    assert expected_type_found(question, answer) == found
