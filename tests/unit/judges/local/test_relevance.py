"""What an answer gives for what its question asks, and a context sentence's relevance score as
the report shows it: the threshold at one half, and a sentence that answers the question by
the rule."""

from __future__ import annotations

from rag_eval_pytest.judges.local.relevance import SentenceScore, expected_type_found


def test_a_sentence_score_shows_the_relevance_threshold_as_one_half() -> None:
    assert SentenceScore(0.65, answers=False).shown(0.65) == 0.5
    assert SentenceScore(0.30, answers=False).shown(0.60) == 0.25
    assert SentenceScore(0.80, answers=False).shown(0.60) == 0.75
    assert not SentenceScore(0.30, answers=False).relevant(0.60)
    # A sentence that answers the question by the rule is relevant and shown at the cut.
    assert SentenceScore(0.30, answers=True).relevant(0.60)
    assert SentenceScore(0.30, answers=True).shown(0.60) == 0.5


def test_which_x_is_answered_by_a_label_or_a_new_name_not_by_the_questions_own() -> None:
    platform = "Which platform does the Leeds train leave from?"
    assert expected_type_found(platform, "The Leeds train leaves from platform 4.") == 1.0
    assert expected_type_found(platform, "It leaves from the usual platform.") == 0.5
    # "Leeds" is the question's name, not the platform.
    assert expected_type_found(platform, "The Leeds train leaves from the usual platform.") == 0.5
    gate = "Which gate does the Oslo flight leave from?"
    assert expected_type_found(gate, "The Oslo flight leaves from gate B.") == 1.0
    assert expected_type_found("Which floor is the clinic on?", "On the third floor.") == 1.0


def test_a_reason_in_words_that_fit_any_question_is_no_cause() -> None:
    why = "Why was my card declined?"
    assert expected_type_found(why, "Your card was declined because it has expired.") == 1.0
    assert expected_type_found(why, "Your card was declined for a reason.") == 0.0
    assert expected_type_found(why, "It was declined for various reasons.") == 0.0


def test_a_time_given_by_another_is_no_time() -> None:
    when = "When is the deadline for tax returns?"
    assert expected_type_found(when, "The deadline for tax returns is 31 January.") == 1.0
    assert expected_type_found(when, "The deadline is the same as last year.") == 0.0
    assert expected_type_found("When did you move?", "We moved last year.") == 1.0


def test_a_time_word_of_the_question_is_no_time_the_answer_gives() -> None:
    spring = "When does the spring term start?"
    assert expected_type_found(spring, "The spring term starts as usual.") == 0.0
    assert expected_type_found(spring, "The spring term starts on 8 January.") == 1.0
    assert expected_type_found("When is the shop open?", "The shop opens in spring.") == 1.0


def test_a_number_or_a_time_the_question_gives_is_not_what_it_asks_for() -> None:
    seats = "How many seats does a Boeing 737 have?"
    assert expected_type_found(seats, "A Boeing 737 has a lot of seats.") == 0.0
    assert expected_type_found(seats, "A Boeing 737 has about 160 seats.") == 1.0
    moved = "When is the 3 pm meeting moved to?"
    assert expected_type_found(moved, "The 3 pm meeting has been moved.") == 0.0
    assert expected_type_found(moved, "The 3 pm meeting has been moved to 4 pm.") == 1.0
    limit = "What is the daily limit for ATM withdrawals?"
    assert expected_type_found(limit, "The daily limit is set daily.") == 0.0
    assert expected_type_found(limit, "The daily limit is $500.") == 1.0


def test_people_named_by_nouns_that_fit_anyone_are_no_answer_to_who() -> None:
    who = "Who founded the company?"
    for vague in ("two people", "a group of friends", "a colleague"):
        assert expected_type_found(who, f"The company was founded by {vague}.") == 0.0
    assert expected_type_found(who, "The company was founded by two engineers.") == 1.0
    assert expected_type_found(who, "It was founded by the research team.") == 1.0


def test_a_cause_in_the_questions_own_words_is_no_cause() -> None:
    why = "Why are trains delayed today?"
    assert expected_type_found(why, "Trains are delayed today because of the delays.") == 0.0
    assert expected_type_found(why, "Trains are delayed because of a signal failure.") == 1.0
