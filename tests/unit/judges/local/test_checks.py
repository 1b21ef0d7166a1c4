"""The deterministic checks and text helpers: what similarity cannot tell apart, with the
evidence a user reads in the verdict's reason. No model is loaded here."""

from __future__ import annotations

import pytest

from rag_eval_pytest.judges.local.checks import (
    check_dates,
    check_negation,
    check_numbers,
    check_swaps,
    missing_name_share,
    stated_amount_words,
    unknown_names,
    words_swapped,
)
from rag_eval_pytest.judges.local.claims import split_claims
from rag_eval_pytest.judges.local.dates import Date, dates
from rag_eval_pytest.judges.local.facts import coverage, negation_cues, plain_form
from rag_eval_pytest.judges.local.pipeline import closest_sentence as _closest_sentence
from rag_eval_pytest.judges.local.quantities import quantities
from rag_eval_pytest.text.names import names
from rag_eval_pytest.text.sentences import split_sentences
from rag_eval_pytest.text.words import content_words

PTO = "Full-time employees receive 20 days paid time off annually."
REFUNDS = "Refunds are accepted within 30 days of purchase. Gift cards cannot be refunded."


def test_a_different_number_with_the_same_unit_is_a_conflict_with_both_numbers_named() -> None:
    [finding] = check_numbers("Employees get 30 days off.", PTO, PTO)
    assert finding.severity == "conflict"
    assert finding.message == "claims 30 days; the context says 20 days"


def test_numbers_match_across_notations() -> None:
    assert check_numbers("Employees get twenty days off.", PTO, PTO) == []
    assert check_numbers("The city had 167446 people.", "x", "It had 167,446 people.") == []
    assert check_numbers("It cost 1.5 million dollars.", "x", "It cost $1,500,000.") == []


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # A currency by its sign before or after the number, its code or its name; "k" after
        # an amount; a unit written short; a digit ordinal.
        ("The company raised $15 million.", "The company raised $1.5 million in seed funding."),
        ("The fee is 35 euros.", "The annual fee is \u20ac25 for members."),
        ("The fee is 3.50 euros.", "The fee is 2,50 \u20ac per transaction."),
        ("Members pay \u20ac52.", "The annual fee is 25 EUR for members."),
        ("The salary is $56,000.", "The starting salary is $65k per year."),
        ("The flat costs \u00a3595,000.", "The flat is on sale for \u00a3 575,000 ."),
        ("The trail is 8 kilometres long.", "The trail is 5 km long."),
        ("Payments are due on the 15th.", "Payments are due on the 1st of each month."),
        ("It costs about $35 a month.", "It costs $24.99."),  # beyond an approximation
        ("The study rooms are on the fourth floor.", "Study rooms are on the 3rd floor."),
        ("Turn left at the first traffic light.", "Turn left at the 2nd traffic light."),
    ],
)
def test_an_amount_in_another_notation_is_compared_as_the_same_thing(
    claim: str, context: str
) -> None:
    [finding] = check_numbers(claim, context, context)
    assert finding.severity == "conflict", finding


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The fee is 25 euros.", "The annual fee is \u20ac25 for members."),
        ("The salary is $65,000.", "The starting salary is $65k per year."),
        ("The trail is 5 kilometers long.", "The trail is 5 km long."),
        ("The trail is 5 kilometres long.", "The trail is 5 kilometers long."),
        ("Payments are due on the 1st day.", "Payments are due on the 1st of each month."),
        ("The trial lasts two weeks.", "The trial lasts 14 days."),
        ("Support replies within 2 days.", "Support replies within 48 hours."),
        ("The warranty covers two years.", "The warranty covers 24 months."),
        ("The plan costs about $25 per month.", "The plan costs $24.99 per month."),
        ("Each box contains a dozen eggs.", "Each box contains 12 eggs."),
        ("The study rooms are on the third floor.", "Study rooms are on the 3rd floor."),
        ("Turn left at the 2nd traffic light.", "Turn left at the second traffic light."),
    ],
)
def test_the_same_amount_in_another_notation_is_no_finding(claim: str, context: str) -> None:
    assert check_numbers(claim, context, context) == []


def test_a_length_of_time_no_context_states_is_a_fact_of_the_claims() -> None:
    # As a number in digits is; a count in words is often one the answer makes.
    [weeks] = check_numbers("The trial lasts three weeks.", "x", "The trial lasts 14 days.")
    assert (weeks.severity, weeks.in_digits) == ("gap", True)
    [films] = check_numbers("It describes two films.", "x", "A film of 1972.")
    assert (films.severity, films.in_digits) == ("gap", False)


def test_one_of_several_amounts_stated_elsewhere_is_no_conflict() -> None:
    # The closest passage lists other amounts of the unit; another sentence states the claim's.
    contexts = (
        "UKIP spent \u00a32,956,737, the Tories \u00a32,980,815 and Labour \u00a31,027,339.\n"
        "The Green Party spent \u00a3534,249."
    )
    passage = contexts.splitlines()[0]
    claim = "UKIP spent \u00a32,956,737 and the Green Party spent \u00a3534,249."
    assert check_numbers(claim, passage, contexts) == []


def test_a_year_a_context_dates_is_stated() -> None:
    context = "Francis I (12 September 1494 \u2013 31 March 1547) was King of France."
    assert check_numbers("Francis I (1494-1547): King of France.", context, context) == []


def test_a_word_and_any_of_its_opposites_negate_each_other() -> None:
    pairs = [
        ("Orders under $50 ship for free.", "Orders over $50 ship for free."),
        ("On Saturdays the store opens an hour later.", "The store opens an hour earlier."),
        ("Smoking is allowed in all rooms.", "Smoking is prohibited in all rooms."),
        ("Smoking is allowed in all rooms.", "Smoking is forbidden in all rooms."),
    ]
    for claim, context in pairs:
        [finding] = check_negation(claim, context, 1.0)
        assert finding.kind == "opposite", claim
    # An opposite and a "not" cancel out: "not allowed" is "prohibited".
    assert check_negation("Smoking is not allowed.", "Smoking is prohibited.", 1.0) == []


def test_an_addresss_words_are_no_terms_in_each_others_places() -> None:
    # "etc" where the context has "located": the words of a file path are not replaced terms.
    context = "The configuration file is located at /etc/app/config.yaml."
    right = "The config file is at /etc/app/config.yaml."
    assert check_swaps(right, context, context, context) == []


def test_a_negation_negates_only_the_words_after_it() -> None:
    context = "Sale items are final sale and cannot be returned."
    assert check_negation("They are final sale.", context, 1.0) == []
    [finding] = check_negation("Sale items can be returned.", context, 1.0)
    assert finding.message == "the claim affirms what the context negates (\u201ccannot\u201d)"


def test_a_replaced_ending_of_up_to_three_words_is_found() -> None:
    context = "The outage was caused by a failed power supply."
    [finding] = check_swaps("The outage was caused by a software bug.", context, context, context)
    assert finding.kind == "replaced"
    assert "software" in finding.message and "failed" in finding.message


def test_a_number_written_another_way_is_no_replaced_word() -> None:
    # "3" and "three" are the number check's: the word after them is no term in their place.
    context = "Your card was declined three times."
    claim = "Your card was declined 3 times today."
    assert check_swaps(claim, context, context, context) == []
    campus = "Each of the three buildings on the campus has its own cafeteria."
    [finding] = check_swaps("Every building on the campus has its own gym.", campus, campus, campus)
    assert "gym" in finding.message and "cafeteria" in finding.message


def test_a_number_no_context_states_is_a_gap() -> None:
    [finding] = check_numbers("Refunds take 24 hours.", REFUNDS, REFUNDS)
    assert finding.severity == "gap"
    assert finding.message == "claims 24 hours; the contexts state no such number"


def test_dates_compare_at_the_precision_written() -> None:
    context = "Badr Hari (born 8 December 1984) is a kickboxer."
    assert check_dates("He was born in 1984.", context, context) == []
    assert check_dates("He was born in December 1984.", context, context) == []
    [finding] = check_dates("He was born on 9 December 1984.", context, context)
    assert finding.severity == "conflict"
    assert finding.message == "claims 9 December 1984; the context says 8 December 1984"
    [gap] = check_dates("He retired in 2015.", "He is a kickboxer.", "He is a kickboxer.")
    assert gap.message == "claims 2015; the contexts give no such date"


def test_date_formats() -> None:
    assert dates("On March 3, 2020 and 2021-04-05, then in 1999.") == [
        Date(2021, 4, 5),
        Date(2020, 3, 3),
        Date(1999),
    ]
    assert quantities("born 8 December 1984") == []  # a date, not a count of Decembers


def test_negation_is_a_conflict_only_about_the_same_statement() -> None:
    context = "Gift cards cannot be refunded."
    [finding] = check_negation("Gift cards can be refunded.", context, covered=1.0)
    assert finding.kind == "negation"
    assert "negates" in finding.message and "cannot" in finding.message
    [other] = check_negation("Gift cards are never refunded.", "Gift cards are refunded.", 1.0)
    assert "never" in other.message
    # A "not" in an unrelated passage says nothing about the claim.
    assert check_negation("Gift cards can be refunded.", context, covered=0.2) == []
    assert check_negation("Gift cards cannot be refunded.", context, covered=1.0) == []
    assert negation_cues("He didn't go") == ["didn't"] and negation_cues("He went") == []


def test_names_the_contexts_never_mention() -> None:
    context = "The Eiffel Tower is in Paris. It opened in 1889."
    assert missing_name_share("The Eiffel Tower is in Lyon.", context) == 0.5
    assert missing_name_share("The Eiffel Tower is in Paris.", context) == 0.0
    gym = "fighting out of Mike's Gym in Oostzaan"
    assert missing_name_share("Mike's Gym in Oostzaan", gym) == 0.0
    assert names("He met Garth Brooks in Nashville.") == ["Garth Brooks", "Nashville"]
    # An acronym the context spells out is not an unknown name.
    assert missing_name_share("Employees get 20 days of PTO.", PTO) == 0.0
    assert missing_name_share("Employees get 20 days of PTA.", PTO) == 1.0


def test_content_word_coverage_ignores_stopwords_and_inflection() -> None:
    assert coverage("Refunds are accepted.", REFUNDS) == 1.0
    assert coverage("Refunds are accepted by phone.", REFUNDS) == 2 / 3


def test_claims_are_sentences_and_independent_clauses() -> None:
    answer = (
        "Here is what the policy says:\n\n"
        "1. Refunds are accepted within 30 days, but gift cards cannot be refunded.\n"
        "2. Employees get apples, pears, and plums.\n"
        "Does that help?"
    )
    assert split_claims(answer) == [
        "Refunds are accepted within 30 days.",
        "Gift cards cannot be refunded.",
        "Employees get apples, pears, and plums.",
    ]
    # A verb phrase that shares the subject before it is not a claim of its own.
    assert split_claims("It is measured in f-stops, and is used to control the light.") == [
        "It is measured in f-stops, and is used to control the light."
    ]
    assert split_claims("The first half was close; Cardiff led 23-20 at halftime.") == [
        "The first half was close.",
        "Cardiff led 23-20 at halftime.",
    ]


def test_short_and_evasive_answers() -> None:
    assert split_claims("Max Gail") == ["Max Gail"]
    assert split_claims("I don't know.") == []
    assert split_claims("Hello! Paris is the capital of France.") == [
        "Paris is the capital of France."
    ]


def test_sentences_glued_without_a_space_are_split_but_abbreviations_are_not() -> None:
    assert split_sentences("It was big in the Middle East.Badr Hari was born in 1984.") == [
        "It was big in the Middle East.",
        "Badr Hari was born in 1984.",
    ]
    # A quotation or a bracket may close the first ("... "Teeth".Jordan is ...").
    assert split_sentences('She starred in "Teeth".Jordan is a comedy (2010).It won.') == [
        'She starred in "Teeth".',
        "Jordan is a comedy (2010).",
        "It won.",
    ]
    assert split_sentences("He moved to the U.S. in 2001. Pi is 3.14 e.g. here.") == [
        "He moved to the U.S. in 2001.",
        "Pi is 3.14 e.g. here.",
    ]


def test_the_closest_passage_wins_over_a_number_stated_elsewhere() -> None:
    contexts = f"{PTO}\n{REFUNDS}"
    [finding] = check_numbers("Employees get 30 days paid time off.", PTO, contexts)
    assert finding.message == "claims 30 days; the context says 20 days"
    # A number the closest passage does not count is fine when another context states it.
    assert check_numbers("Refunds take 30 days.", "Refunds are quick.", contexts) == []
    [finding] = check_numbers(
        "Around 1,000 scientists were recruited.",
        "More than 1,600 German scientists, engineers, and technicians were recruited.",
        "",
    )
    assert finding.message == "claims 1,000 scientists; the context says 1,600 German scientists"


def test_the_closest_sentence_on_a_tie_is_the_one_sharing_more_words() -> None:
    passage = (
        "Express shipping costs $12.99 and delivers in 1-2 business days. "
        "We do not ship to P.O. boxes."
    )
    assert _closest_sentence("We deliver to P.O. boxes.", passage) == (
        "We do not ship to P.O. boxes."
    )


def test_a_number_is_read_against_the_sentence_about_its_thing() -> None:
    """The claim's number in the window's other sentence, counting another thing, is no
    support: the sentence about the claim's thing gives another number."""
    window = (
        "Items can be returned within 30 days of delivery for a full refund. "
        "Refunds are issued within 5 business days."
    )
    [conflict] = check_numbers("You can return an item within 5 days of delivery.", window, window)
    assert conflict.message == "claims 5 days; the context says 30 days"
    for right in (
        "You have 30 days from delivery to return an item.",
        "Refunds are issued within 5 business days.",
        "Items can be returned within 30 days and refunds are issued within 5 business days.",
    ):
        assert check_numbers(right, window, window) == [], right


def test_the_same_number_of_another_unit_of_time_is_a_conflict() -> None:
    context = "Refunds are processed within two business days."
    [conflict] = check_numbers("Refunds are processed within two weeks.", context, context)
    assert conflict.message == "claims two weeks; the context says two business days"
    assert check_numbers("Refunds are processed within 2 days.", context, context) == []
    # The same length in other units, and an ordinal day, are no conflict.
    months = "The warranty lasts 24 months."
    assert check_numbers("The warranty lasts two years.", months, months) == []
    due = "Payments are due on the 1st of each month."
    assert check_numbers("Payments are due on the 1st day.", due, due) == []


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("The coastal trail is 5 miles long.", "The coastal trail is 8 km long."),
        ("Each bottle holds 2 liters of water.", "Each bottle holds 2000 ml of water."),
        ("Each box holds half a dozen eggs.", "Each box holds 6 eggs."),
        ("Each box holds a dozen eggs.", "Each box holds 12 eggs."),
        ("The tour lasts half an hour.", "The tour lasts 30 minutes."),
        ("Checked bags may weigh up to 50 pounds.", "Checked bags may weigh up to 23 kg."),
        ("Water boils at 212 degrees Fahrenheit.", "Water boils at 100 \u00b0C."),
        ("Members save 15 per cent.", "Members save 15%."),
        ("The warranty lasts two decades.", "The warranty lasts 20 years."),
    ],
)
def test_an_amount_in_another_unit_of_its_dimension_is_the_same_amount(
    claim: str, context: str
) -> None:
    context = plain_form(context)
    assert check_numbers(claim, context, context) == []
    assert not list(unknown_names(claim, context))  # "Fahrenheit" is a unit, no name
    # The unit's words are the number check's: the context lacks none of the claim's words.
    words = content_words(claim) - stated_amount_words(claim, context)
    assert words <= content_words(context)


def test_another_amount_in_another_unit_is_no_match() -> None:
    trail = "The coastal trail is 8 km long."
    [same_number] = check_numbers("The coastal trail is 8 miles long.", trail, trail)
    assert same_number.message == "claims 8 miles; the context says 8 km"
    [gap] = check_numbers("The coastal trail is 12 miles long.", trail, trail)
    assert gap.severity == "gap"
    eggs = "Each box holds 12 eggs."
    [conflict] = check_numbers("Each box holds half a dozen eggs.", eggs, eggs)
    assert conflict.message == "claims half a dozen eggs; the context says 12 eggs"
    # Within one system a conversion is exact: 1.2 liters is no 1000 ml.
    water = "Each bottle holds 1000 ml of water."
    [more] = check_numbers("Each bottle holds 1.2 liters of water.", water, water)
    assert more.severity == "gap"


SHARES = "Students get a 10% discount and seniors a 20% discount."
STORAGE = "The Basic plan includes 5 GB of storage and the Pro plan 50 GB."


@pytest.mark.parametrize(
    ("claim", "context", "says"),
    [
        ("Students get a 20% discount.", SHARES, "claims 20%; the context says 10%"),
        ("The Pro plan includes 5 GB of storage.", STORAGE, "claims 5 GB; the context says 50 GB"),
        (
            "Gold members get 8 classes a month.",
            "Silver members get 8 classes a month and Gold members 20.",
            "claims 8 classes; the context says 20",
        ),
    ],
)
def test_a_number_is_read_in_the_clause_of_what_it_counts(
    claim: str, context: str, says: str
) -> None:
    [finding] = check_numbers(claim, context, context)
    assert (finding.severity, finding.message) == ("conflict", says)


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        ("Seniors get a 20% discount.", SHARES),
        ("The Basic plan includes 5 GB of storage.", STORAGE),
        ("The analyst role pays $70,000 to $85,000.", "The role pays between $70k and $85k."),
        ("Plans cost $20.", "Plans cost $10, $20 and $30."),
    ],
)
def test_a_number_its_own_clause_states_is_no_conflict(claim: str, context: str) -> None:
    assert check_numbers(claim, context, context) == []


PARKING = "Parking costs $10 per hour, up to $40 per day."


def test_a_rate_is_compared_per_its_unit() -> None:
    [day] = check_numbers("Parking costs $10 per day.", PARKING, PARKING)
    assert day.message == "claims $10 per day; the context says $40 per day"
    [hour] = check_numbers("Parking costs $40 per hour.", PARKING, PARKING)
    assert hour.message == "claims $40 per hour; the context says $10 per hour"
    for claim in ("Parking costs $10 per hour.", "Parking costs $10 an hour.", "It is $40 a day."):
        assert check_numbers(claim, PARKING, PARKING) == [], claim


def test_two_names_in_each_others_places_are_a_conflict() -> None:
    plans = "The Basic plan is cheaper than the Pro plan."
    [finding] = check_swaps("The Pro plan is cheaper than the Basic plan.", plans, plans, plans)
    assert (finding.kind, finding.message) == (
        "order",
        "the claim puts Pro where the context has Basic",
    )
    assert check_swaps(plans, plans, plans, plans) == []
    title = "Excuse My French is a 2014 Egyptian film directed by Amr Salama."
    claim = "The 2014 Egyptian film Excuse My French was directed by Amr Salama."
    assert check_swaps(claim, title, title, title) == []  # the same facts, another order


def test_two_names_with_each_others_word_before_them_are_a_conflict() -> None:
    film = "Giuliani Time is a 2005 documentary film by Kevin Keating about Rudy Giuliani."
    claim = (
        "Giuliani Time is a 2005 documentary film by Rudy Giuliani about Kevin Keating, a mayor."
    )
    [swap] = check_swaps(claim, film, film, film)
    assert swap.message == "the claim puts Rudy Giuliani where the context has Kevin Keating"
    # Another order with the same word before each name is no swap, nor is one another
    # sentence of the passage says.
    keating = "Kevin Keating made a documentary film about Rudy Giuliani in 2005."
    assert check_swaps(keating, film, film, film) == []
    rentals = "Rentals from Lisbon to Porto carry a $90 fee. Rentals from Porto to Lisbon are free."
    going = "Going from Porto to Lisbon costs nothing extra, unlike the other way round."
    assert check_swaps(going, rentals, rentals, rentals) == []


FERRIES = "The morning ferry takes 40 minutes. The night ferry stops twice and takes 90 minutes."


def test_a_number_is_read_in_the_sentence_that_holds_every_word_of_the_claim() -> None:
    # The closest passage lacks "night": the sentence about the night ferry counts 90 minutes.
    morning = FERRIES.split(". ")[0] + "."
    [finding] = check_numbers("The night ferry takes 40 minutes.", morning, FERRIES)
    assert finding.message == "claims 40 minutes; the context says 90 minutes"
    night = FERRIES.split(". ")[1]
    assert check_numbers("The night ferry takes 90 minutes.", night, FERRIES) == []
    assert check_numbers("The morning ferry takes 40 minutes.", morning, FERRIES) == []


HOTEL = "The hotel is 5 minutes from the station and 20 minutes from the beach."
SCANNER = "The scanner reads 40 pages a minute in colour and 60 in black and white."


def test_a_later_clause_that_leaves_out_the_shared_words_binds_its_number() -> None:
    # The second clause leaves out "The hotel is": what it alone names binds the number.
    assert check_numbers("The hotel is 20 minutes from the beach.", HOTEL, HOTEL) == []
    [beach] = check_numbers("The hotel is 5 minutes from the beach.", HOTEL, HOTEL)
    assert beach.message == "claims 5 minutes; the context says 20 minutes"
    assert check_numbers("The scanner reads 40 pages a minute in colour.", SCANNER, SCANNER) == []
    [black] = check_numbers("It reads 40 pages a minute in black and white.", SCANNER, SCANNER)
    assert black.message == "claims 40 pages; the context says 60"


CALLS = "Calls to the EU cost 5 cents a minute and calls to Japan cost 30 cents a minute."


def test_a_first_clause_only_it_names_binds_its_number() -> None:
    # "EU" is an acronym, not a short word: only the first clause names it.
    [eu] = check_numbers("Calls to the EU cost 30 cents a minute.", CALLS, CALLS)
    assert eu.message == "claims 30 cents; the context says 5 cents"
    assert check_numbers("Calls to the EU cost 5 cents a minute.", CALLS, CALLS) == []
    [japan] = check_numbers("Calls to Japan cost 5 cents a minute.", CALLS, CALLS)
    assert japan.message == "claims 5 cents; the context says 30 cents"


def test_a_share_of_a_whole_is_checked_against_the_share_or_percentage_stated() -> None:
    plan = "A quarter of the users chose the annual plan."
    [half] = check_numbers("Half of the users chose the annual plan.", plan, plan)
    assert half.message == "claims Half; the context says quarter"
    rent = "33% of the budget goes to rent."
    assert check_numbers("A third of the budget goes to rent.", rent, rent) == []


def test_a_labelled_number_is_checked_against_its_own_clause() -> None:
    flights = "Flights to Rome leave from Terminal 1; flights to Madrid from Terminal 2."
    [rome] = check_numbers("The flight to Rome leaves from Terminal 2.", flights, flights)
    assert rome.message == "claims Terminal 2; the context says Terminal 1"
    assert check_numbers("The flight to Madrid leaves from Terminal 2.", flights, flights) == []


def test_two_words_apart_in_each_others_places_are_swapped_but_neighbours_are_reordered() -> None:
    bridge = "The bridge is closed to cyclists but open to cars."
    swapped = words_swapped("The bridge is closed to cars but open to cyclists.", bridge)
    assert swapped is not None
    assert swapped.message == "the claim puts car where the context has cyclist"
    assert (
        words_swapped("The vaccine is stored at 2-8 degrees.", "Store the vaccine at 2-8 degrees.")
        is None
    )
    # A passive says the same in the other order.
    assert words_swapped("The cat is chased by the dog.", "The dog chases the cat.") is None


def test_a_number_given_as_a_bound_is_stated_by_a_plain_number_within_it() -> None:
    renewed = "62% of customers renewed their subscription."
    assert check_numbers("More than half of customers renewed.", renewed, renewed) == []
    [fewer] = check_numbers("Fewer than half of customers renewed.", renewed, renewed)
    assert fewer.message == "claims fewer than half; the context says 62%"
    laptop = "The laptop weighs 1.3 kg."
    assert check_numbers("The laptop weighs under 1.5 kg.", laptop, laptop) == []
    [over] = check_numbers("The laptop weighs over 1.5 kg.", laptop, laptop)
    assert over.message == "claims over 1.5 kg; the context says 1.3 kg"
    # Against the context's own bound, the two numbers are compared.
    orders = "Orders over 50 euros ship free."
    [bound] = check_numbers("Shipping is free over 30 euros.", orders, orders)
    assert bound.message == "claims 30 euros; the context says 50 euros"


def test_a_date_another_clause_of_the_sentence_gives_is_no_date_of_the_claims() -> None:
    offices = "Our London office opened in 2010 and our Paris office in 2015."
    [london] = check_dates("The London office opened in 2015.", offices, offices)
    assert london.message == "claims 2015; the context says 2010"
    assert check_dates("The Paris office opened in 2015.", offices, offices) == []
    assert check_dates("The London office opened in 2010.", offices, offices) == []
    [paris] = check_dates("The Paris office opened in 2010.", offices, offices)
    assert paris.message == "claims 2010; the context says 2015"


def test_a_later_clause_of_its_own_words_does_not_take_a_claim_by_one_of_them() -> None:
    # "Lee" of the later clause is another's name: the birth date is the first clause's.
    singer = (
        "Lee Min-jae (; born March 4, 1988) is a South Korean singer, best known for his role in"
        ' the musical "Blue Harbour", and the 2014 film "Last Ferry", in which he sang with Lee'
        " Hana."
    )
    claim = (
        "Lee Min-jae (; born March 4, 1988) is a South Korean singer, best known for his role in"
        ' the musical "Blue Harbour".'
    )
    assert check_dates(claim, singer, singer) == []


def test_a_span_of_years_with_another_start_or_end_is_a_conflict() -> None:
    # The claim's 1994 is the sentence's other year: the span's start is the conflict.
    governor = "She served as governor from 1991 to 1995 and lost re-election in 1994."
    [span] = check_dates("She served as governor from 1994 to 1995.", governor, governor)
    assert span.message == "claims 1994 to 1995; the context says 1991 to 1995"
    show = "The show ran on ITV from 1985 till 1988, and again in 1993."
    [end] = check_dates("The show ran on ITV from 1985 till 1993.", show, show)
    assert end.message == "claims 1985 to 1993; the context says 1985 to 1988"
    assert check_dates("She was governor between 1991 and 1995.", governor, governor) == []


def test_a_claim_of_several_dates_is_read_clause_by_clause() -> None:
    bridges = "The north bridge was built in 1887 and the south bridge in 1932."
    north, south = check_dates(
        "The north bridge was built in 1932 and the south bridge in 1887.", bridges, bridges
    )
    assert (north.message, south.message) == (
        "claims 1932; the context says 1887",
        "claims 1887; the context says 1932",
    )
    assert check_dates(bridges, bridges, bridges) == []
    # A clause a comma opens before a word in lower case is read alone too.
    career = "She reached the final in 1988, won the doubles title in 1984, and retired in 1991."
    swapped = "She reached the final in 1984, won the doubles title in 1988, and retired in 1991."
    assert len(check_dates(swapped, career, career)) == 2
    assert check_dates(career, career, career) == []


def test_each_clause_of_a_claim_then_clause_is_read_alone() -> None:
    price = "The introductory price is $9 a month for six months, then $15 a month."
    swapped = "The introductory price is $15 a month for six months, then $9 a month."
    [first] = check_numbers(swapped, price, price)
    assert first.message == "claims $15; the context says $9"
    assert check_numbers(price, price, price) == []


def test_a_date_is_read_against_the_dated_sentence_closest_to_the_claim() -> None:
    # 2014 elsewhere is another event's: the premiere's date is the closest sentence's.
    strain = (
        "The Strain is a horror drama series that premiered on FX on July 13, 2014. Its"
        " episodes of 2014 drew strong ratings."
    )
    [premiere] = check_dates(
        "The Strain is a horror drama series that premiered on FX on July 26, 2014.", strain, strain
    )
    assert premiere.message == "claims 26 July 2014; the context says 13 July 2014"
    assert check_dates("The Strain premiered on FX on July 13, 2014.", strain, strain) == []
    # Two words in common bind no date: "Ratings rose on July 26, 2014." says something else.
    assert check_dates("Ratings rose on July 26, 2014.", strain, strain) == []


def test_a_claim_that_denies_more_than_its_context_denies_is_a_negation() -> None:
    fights = "The first player to start a fight is automatically suspended without pay."
    [more] = check_negation(
        "The first player to start a fight is not automatically suspended without pay.", fights, 1.0
    )
    assert more.message == "the claim says \u201cnot\u201d; the context states it without negation"
    credits = "SLA credits are applied to the next invoice and cannot be redeemed for cash."
    assert check_negation(
        "SLA credits are not applied to the next invoice and cannot be redeemed for cash.",
        credits,
        1.0,
    )
    assert check_negation(fights, fights, 1.0) == []
    # A denial does not reach past its comma: "not," answers the question.
    lockers = "At the Eastside and Harbour pools, lockers cannot be rented overnight."
    assert (
        check_negation("Regrettably not, lockers cannot be rented overnight.", lockers, 1.0) == []
    )


def test_closed_where_the_context_says_opened_is_an_opposite() -> None:
    opened = "The bridge was opened by the mayor in May."
    [finding] = check_negation("The mayor closed the bridge in May.", opened, 1.0)
    assert (finding.kind, finding.message) == (
        "opposite",
        "the claim says \u201cclosed\u201d; the context says \u201copened\u201d",
    )


def test_a_number_of_a_thing_the_context_only_compares_with_is_no_conflict() -> None:
    teams = "Our Madrid team has grown to 40 people, twice the size of the Rome team."
    # 20 is what twice the size works out to: only reading the comparison settles it.
    assert check_numbers("The Rome team has 20 people.", teams, teams) == []
    [madrid] = check_numbers("Our Madrid team has 30 people.", teams, teams)
    assert madrid.message == "claims 30 people; the context says 40 people"


def test_a_pronoun_contracted_opening_a_claim_is_no_name() -> None:
    context = "Backups of EU workspaces are stored in Dublin and destroyed after 35 days."
    claim = "They're destroyed after 35 days."
    assert check_swaps(claim, context, context, context) == []


def test_the_same_price_per_another_word_for_the_same_thing_is_no_conflict() -> None:
    plans = "The Team plan costs $12 per seat billed annually, or $15 per seat billed monthly."
    assert check_numbers("Team is $15 per user seat each month.", plans, plans) == []
    # A unit is no other word for another: per hour against per day stays a conflict.
    [hour] = check_numbers("Team is $15 per hour.", plans, plans)
    assert hour.severity == "conflict"


def test_up_to_is_the_most_a_thing_has_not_any_amount_below_it() -> None:
    devices = "The Family plan covers up to 6 devices; the Solo plan covers 1 device."
    [solo] = check_numbers("You can use the Solo plan on up to 6 devices.", devices, devices)
    assert solo.severity in ("gap", "conflict"), solo  # 1 device is another most
    assert check_numbers("The Family plan covers up to 6 devices.", devices, devices) == []
    days = "Standard delivery takes 3 business days."
    [most] = check_numbers("Delivery takes up to 5 business days.", days, days)
    assert most.severity == "conflict"
    ranged = "Standard delivery takes 3 to 5 business days."
    assert check_numbers("Delivery takes up to 5 business days.", ranged, ranged) == []
    bags = "Each passenger may check 2 bags."
    assert check_numbers("You can check up to 2 bags.", bags, bags) == []


def test_never_more_than_is_an_upper_bound() -> None:
    fees = "Each transfer costs 1.5% with a minimum fee of $0.25 and a maximum of $15."
    assert check_numbers("The fee is never more than $15.", fees, fees) == []


def test_no_heavier_than_is_an_upper_bound() -> None:
    bags = "Bags weighing between 23 and 32 kg incur an overweight fee of $75."
    assert check_numbers("A bag no heavier than 32 kg pays the $75 fee.", bags, bags) == []
    # Without "no", a bag over the range's top.
    [heavier] = check_numbers("A bag heavier than 32 kg pays the $75 fee.", bags, bags)
    assert heavier.message == "claims heavier than 32 kg; the context says 32 kg"


def test_a_range_with_another_start_is_a_conflict_whatever_else_the_contexts_say() -> None:
    wires = "Incoming wires from abroad usually take 1 to 5 business days to arrive."
    contexts = f"Domestic transfers take 3 business days. {wires}"
    [start] = check_numbers("Incoming wires take 3 to 5 business days.", wires, contexts)
    assert start.message == "claims 3; the context says 1"
    assert (
        check_numbers("Incoming wires take between 1 and 5 business days.", wires, contexts) == []
    )


def test_a_clause_after_then_binds_its_own_amount() -> None:
    rates = "The fixed rate is 4.5% for two years, then 6.2% variable."
    [fixed] = check_numbers("The fixed rate is 6.2% for two years.", rates, rates)
    assert fixed.message == "claims 6.2%; the context says 4.5%"
    [variable] = check_numbers("The variable rate is 4.5%.", rates, rates)
    assert variable.message == "claims 4.5%; the context says 6.2%"
    assert check_numbers("The fixed rate is 4.5% for two years.", rates, rates) == []
    # What comes after is the later clause's, whatever its words.
    assert check_numbers("The rate is 6.2% after two years.", rates, rates) == []


def test_clauses_parted_by_or_bind_their_own_amounts_and_share_the_subject() -> None:
    battery = "The battery lasts up to 10 hours of video playback or 15 hours of web browsing."
    [video] = check_numbers("The battery lasts up to 15 hours of video playback.", battery, battery)
    assert video.message == "claims 15 hours; the context says 10 hours"
    assert check_numbers("The battery lasts 15 hours of web browsing.", battery, battery) == []
    # Without the words of either alternative, neither binds the claim.
    assert check_numbers("The battery lasts up to 15 hours.", battery, battery) == []


def test_a_bound_the_context_gives_the_other_side_of_is_a_gap() -> None:
    expenses = (
        "Expenses up to $500 are approved by your line manager; anything above that requires"
        " sign-off from the finance director."
    )
    [over] = check_numbers(
        "Expenses over $500 are approved by your line manager.", expenses, expenses
    )
    assert (over.kind, over.severity) == ("numbers", "gap")
    assert over.message == "claims over $500; the context says up to $500"
    assert check_numbers("Expenses up to $500 go to your line manager.", expenses, expenses) == []
    bags = "Checked bags of up to 23 kg are included."
    [heavy] = check_numbers("Bags of more than 23 kg are included.", bags, bags)
    assert heavy.severity == "gap"
    # A bound of the same side, or one that meets the claim's, leaves it alone.
    orders = "Orders over $50 ship free."
    assert check_numbers("Orders over $50 ship free.", orders, orders) == []
    assert check_numbers("Orders of at least $50 ship free.", orders, orders) == []


def test_a_bound_the_context_states_on_the_same_side_holds_beside_its_plain_numbers() -> None:
    shipping = "Orders over $50 ship free; smaller orders pay $4.99."
    # The context's own words: its plain $4.99 is another clause's.
    assert check_numbers("Orders over $50 ship free.", shipping, shipping) == []
    assert check_numbers("Orders of more than $50 ship free.", shipping, shipping) == []
    # A narrower case of the rule is for a reader to work out; a wider one breaks it.
    [narrower] = check_numbers("Orders over $60 ship free.", shipping, shipping)
    assert narrower.severity == "gap"
    [wider] = check_numbers("Orders over $40 ship free.", shipping, shipping)
    assert (wider.severity, wider.message) == (
        "conflict",
        "claims over $40; the context says over $50",
    )


@pytest.mark.parametrize(
    "sentence",
    [
        "Bike rental costs 8 euros per hour or 30 euros per day.",
        "The car comes with a 7-inch screen and an optional 10-inch screen.",
        "Spending up to $1,000 earns 1% cashback, and over $1,000 2%.",
        "The 55-inch TV costs $699 and the 65-inch TV costs $999 in the sale.",
        "The first replacement costs £15 and any further replacements cost £25.",
    ],
)
def test_a_sentence_of_several_amounts_is_no_conflict_with_itself(sentence: str) -> None:
    assert check_numbers(sentence, sentence, sentence) == []


def test_a_clause_the_evidence_says_whole_binds_its_numbers_but_hides_no_swap() -> None:
    bikes = "Bike rental costs 8 euros per hour or 30 euros per day."
    # A number in words is its number.
    assert (
        check_numbers("Bike rental costs eight euros per hour or 30 euros per day.", bikes, bikes)
        == []
    )
    hour, day = check_numbers(
        "Bike rental costs 30 euros per hour or 8 euros per day.", bikes, bikes
    )
    assert hour.message == "claims 30 euros per hour; the context says 8 euros per hour"
    assert day.message == "claims 8 euros per day; the context says 30 euros per day"
    tvs = "The 55-inch TV costs $699 and the 65-inch TV costs $999 in the sale."
    [price] = check_numbers("The 65-inch TV costs $699 and the 55-inch TV costs $999.", tvs, tvs)
    assert price.severity == "conflict"


@pytest.mark.parametrize(
    ("claim", "context", "message"),
    [
        # The word next to the amount binds it within one clause.
        (
            "The phone stores 128 GB.",
            "The phone stores 64 GB, expandable to 128 GB with a memory card.",
            "claims 128 GB; the context says 64 GB",
        ),
        (
            "HELOCs have a 20-year draw period.",
            "HELOCs have a 10-year draw period followed by a 20-year repayment period.",
            "claims 20 year; the context says 10 year",
        ),
        (
            "After the 60-day period, all data is deleted within 60 days.",
            "After the 60-day period, all data is deleted within 30 days.",
            "claims 60 days; the context says 30 days",
        ),
        # A number said twice is read in each of its clauses.
        (
            "The excess is $500 on the Standard plan and $500 on the Plus plan.",
            "The excess is $500 on the Standard plan and $250 on the Plus plan.",
            "claims $500; the context says $250",
        ),
        # Times of day are no amounts of a clause: the fourth Tuesday is the south side's.
        (
            "The south side is swept on the second Tuesday, 7 to 10 am.",
            "The north side is swept on the second Tuesday from 7:00 to 10:00 and the south"
            " side on the fourth Tuesday from 7:00 to 10:00.",
            "claims second Tuesday; the context says fourth Tuesday",
        ),
    ],
)
def test_an_amount_moved_to_another_amounts_place_is_a_conflict(
    claim: str, context: str, message: str
) -> None:
    assert [f.message for f in check_numbers(claim, context, context)] == [message]


def test_words_next_to_amounts_bind_nothing_in_a_list_or_per_another_unit() -> None:
    plans = "Plans cost $10, $20 and $30."
    assert check_numbers("Plans cost $20.", plans, plans) == []
    parking = "Parking costs $10 per hour, up to $40 per day."
    assert check_numbers("Parking costs $40 a day.", parking, parking) == []
    phone = "The phone stores 64 GB, expandable to 128 GB with a memory card."
    assert check_numbers("The phone stores 64 GB.", phone, phone) == []
    assert check_numbers("It is expandable to 128 GB.", phone, phone) == []


def test_the_one_amount_next_to_the_claims_word_binds_a_number_the_passage_lacks() -> None:
    sealants = "Fissure sealants are £30 per tooth and are recommended from age 6."
    others = sealants + " Children under 12 receive their first check-up free of charge."
    [age] = check_numbers(
        "Fissure sealants are £30 per tooth and are recommended from age 12.", sealants, others
    )
    assert age.message == "claims 12; the context says 6"
    # £30 is a price, not the bare age 30.
    [priced] = check_numbers(
        "Fissure sealants are £30 per tooth and are recommended from age 30.", sealants, others
    )
    assert priced.message == "claims 30; the context says 6"


def test_a_bound_the_context_states_is_read_before_its_plain_amounts() -> None:
    uptime = (
        "If monthly uptime falls below 99.95%, customers receive a 10% service credit; below"
        " 99.0%, the credit increases to 25%."
    )
    [wider] = check_numbers(
        "If uptime falls below 199.9%, customers get a 10% credit.", uptime, uptime
    )
    assert wider.message == "claims below 199.9%; the context says below 99.95%"


def test_a_year_no_context_gives_is_a_gap_in_digits() -> None:
    # Never supported by its wording alone: "dial 1998" where the context says "dial 999".
    emergencies = "For life-threatening emergencies, dial 999."
    [year] = check_dates("For life-threatening emergencies, dial 1998.", emergencies, emergencies)
    assert (year.severity, year.in_digits) == ("gap", True)


def test_a_number_of_three_parts_no_context_writes_is_a_gap() -> None:
    sdk = "Node.js SDK version 4.2.0 added support for streaming responses."
    [version] = check_numbers("SDK version 8.4.0 added streaming responses.", sdk, sdk)
    assert (version.severity, version.message) == (
        "gap",
        "claims 8.4.0; the contexts state no such number",
    )
    assert check_numbers("Version 4.2.0 added streaming.", sdk, sdk) == []


def test_a_four_digit_number_that_counts_a_plural_is_an_amount_not_a_year() -> None:
    orders = "Purchase orders below 2,000 euros are signed by the team lead."
    [euros] = check_numbers(
        "Purchase orders below 2003 euros are signed by the team lead.", orders, orders
    )
    assert euros.severity == "conflict"
    assert [q.text for q in quantities("a score of 2000 points per query")] == ["2000 points"]
    # After a word of time or an article, it stays a year.
    assert dates("the 2016 elections") == [Date(2016)]
    assert dates("In 2003 prices rose.") == [Date(2003)]


def test_a_clause_is_bound_by_another_number_of_the_claim() -> None:
    # "16-inch" names the clause as a word would, "£50,270" the elided one.
    models = "The 14-inch model weighs 1.4 kg and the 16-inch model weighs 2.1 kg."
    [heavier] = check_numbers("The 16-inch model weighs 1.4 kg.", models, models)
    assert heavier.message == "claims 1.4 kg; the context says 2.1 kg"
    assert check_numbers("The 16-inch model weighs 2.1 kg.", models, models) == []
    # Two numbers of one unit compare: neither names a clause.
    assert check_numbers("The 14-inch model is lighter than the 16-inch one.", models, models) == []
    tax = "Income above £12,570 is taxed at 20%, and above £50,270 at 40%."
    [band] = check_numbers("Income above £50,270 is taxed at 20%.", tax, tax)
    assert band.message == "claims 20%; the context says 40%"
    assert check_numbers("Income above £12,570 is taxed at 20%.", tax, tax) == []


def test_a_total_the_contexts_numbers_add_up_to_is_no_conflict() -> None:
    rooms = "The hotel has 10 double rooms and 5 suites."
    [total] = check_numbers("There are 15 rooms in total.", rooms, rooms)
    assert (total.severity, total.message) == (
        "gap",
        "claims 15 rooms; the contexts state no such number",
    )
    [wrong] = check_numbers("There are 20 rooms in total.", rooms, rooms)
    assert wrong.severity == "conflict"


FEE = "The course fee is £1,200, which can be paid in 3 instalments."
LAPTOP = "The laptop costs $900 and can be paid over 6 months at 0% interest."


@pytest.mark.parametrize(
    ("claim", "context", "severities"),
    [
        # The claim shows its working, or counts out a rate: a gap, not a conflict.
        ("The course costs £1,200, payable in three instalments of £400.", FEE, ["gap"]),
        ("The course costs £1,200, payable in three instalments of £500.", FEE, ["conflict"]),
        ("You can pay $150 a month for 6 months at 0% interest.", LAPTOP, ["gap"]),
        # A dose halved is no working: the claim does not show the whole.
        ("Take 250 mg two times daily with food.", "Take 500 mg twice daily.", ["conflict"]),
        # An amount and its smaller part are one amount.
        ("The flight takes two and a half hours.", "Flight time is 2 h 30 min.", []),
    ],
)
def test_a_number_the_claim_works_out_is_a_gap_not_a_conflict(
    claim: str, context: str, severities: list[str]
) -> None:
    assert [f.severity for f in check_numbers(claim, context, context)] == severities


def test_an_ordinal_in_digits_is_the_one_in_words() -> None:
    rent = "Rent is payable on the first day of every month; a late fee applies after the 5th."
    assert check_numbers("Rent is due on the 1st of each month.", rent, rent) == []


def test_a_clause_is_bound_by_a_date_without_its_year() -> None:
    dated = "Applications open on 1 February and close on 15 March."
    [opens] = check_dates("Applications open on 15 March.", dated, dated)
    assert opens.message == "claims 15 March; the context says 1 February"
    assert check_dates("Applications close on 15 March.", dated, dated) == []
    # A claim of two dates is not read against one clause.
    due = "Tax is payable in two instalments: the first by 30 June and the second by 30 November."
    assert check_dates("One part is due by June 30 and the other by November 30.", due, due) == []


def test_clauses_bind_their_own_bare_numbers() -> None:
    # A number without a unit is bound to its clause as one with a unit is.
    phones = "Call reception on 100 and the night manager on 400."
    [reception] = check_numbers("Call reception on 400.", phones, phones)
    assert reception.message == "claims 400; the context says 100"
    assert check_numbers("Call the night manager on 400.", phones, phones) == []
    # A time of day in the other clause leaves its number alone.
    night = (
        "After 10 pm, call the night manager on extension 400; before that, call reception on 100."
    )
    [extension] = check_numbers("Call reception on extension 400.", night, night)
    assert extension.severity == "conflict"
    assert check_numbers("Call reception on extension 100.", night, night) == []


def test_two_amounts_of_one_thing_are_both_its_own() -> None:
    # "at 80% and 100% of your allowance": 80% is the allowance's as much as 100% is.
    alerts = "Data usage alerts are sent by text at 80% and 100% of your allowance."
    assert check_numbers("An alert is sent at 80% of your allowance.", alerts, alerts) == []
    [other] = check_numbers("An alert is sent at 90% of your allowance.", alerts, alerts)
    assert other.severity == "conflict"
    # Two clauses of their own still bind their own amounts.
    off = "Students get 10% off and seniors get 20% off."
    [seniors] = check_numbers("Students get 20% off.", off, off)
    assert seniors.severity == "conflict"


@pytest.mark.parametrize(
    "claim",
    [
        "Scan the QR code to install the eSIM profile.",
        "Unfortunately not, they are not accredited for university credit.",
        "Tap Settings, select Wi-Fi and choose your network.",
    ],
)
def test_an_instruction_or_an_adverb_that_opens_a_claim_names_nothing(claim: str) -> None:
    context = (
        "On iOS and Android, install the eSIM profile by scanning the QR code, then open "
        "Settings, select Wi-Fi and choose your network. Certificates are not accredited for "
        "university credit."
    )
    assert check_swaps(claim, context, context, context) == []


def test_a_place_is_known_by_its_other_names() -> None:
    assert missing_name_share("We ship to Britain.", "We ship to the United Kingdom.") == 0.0
    assert missing_name_share("We ship to Holland.", "We ship to the Netherlands.") == 0.0
    # "us" is no name of a place.
    assert missing_name_share("We ship to America.", "Contact us for shipping.") == 1.0


def test_a_first_word_the_contexts_write_in_another_form_is_no_name() -> None:
    pizza = "The Hawaiian pizza is topped with cheese, ham and pineapple."
    assert check_swaps("Toppings are cheese, ham and pineapple.", pizza, pizza, pizza) == []
    # A first word that is a name still swaps with another ("Lyon is bigger than Paris.").
    cities = "Lyon is bigger than Paris."
    [swapped] = check_swaps("Paris is bigger than Lyon.", cities, cities, cities)
    assert swapped.severity == "conflict"


def test_two_names_that_differ_by_their_letter_in_each_other_s_places_are_a_conflict() -> None:
    plans = "Plan B has more storage than Plan A."
    [swapped] = check_swaps("Plan A has more storage than Plan B.", plans, plans, plans)
    assert swapped.kind == "order"
    assert check_swaps(plans, plans, plans, plans) == []
    assert names("Plan A has more storage than Plan B.") == ["Plan A", "Plan B"]


def test_what_the_context_excepts_turned_round_agrees_and_stated_of_it_conflicts() -> None:
    gym = "The gym is open every day except public holidays."
    ratio = 1.0
    assert check_negation("The gym is closed on public holidays.", gym, ratio) == []
    [stated] = check_negation("The gym is open on public holidays.", gym, ratio)
    assert stated.message == (
        "the claim states it of what the context excepts (\u201cexcept public holidays\u201d)"
    )
    # Another day than the excepted one is an opposite still.
    [other] = check_negation("The gym is closed on Sundays.", gym, ratio)
    assert other.kind == "opposite"


def test_two_words_in_each_other_s_places_before_a_condition_the_claim_leaves_out() -> None:
    trains = "The regional train is faster than the express train on Sundays."
    swapped = words_swapped("The express train is faster than the regional train.", trains)
    assert swapped is not None and swapped.kind == "order"
    # Words between the claim's are kept: an inversion is no swap.
    capital = "Canberra is the capital city of Australia."
    assert words_swapped("Australia's capital is Canberra.", capital) is None


@pytest.mark.parametrize(
    ("claim", "context", "message"),
    [
        # A price and a cover, a count and a year, a version and another: each number is
        # bound to its words, whatever it counts.
        (
            "Contents insurance starts at $20,000 per month for up to $9 of cover.",
            "Contents insurance starts at $9 per month for up to $20,000 of cover.",
            "claims $20,000; the context says $9",
        ),
        (
            "The Singer Building was a 1908-story office building completed in 47.",
            "The Singer Building was a 47-story office building completed in 1908.",
            "claims 1908; the context says 47",
        ),
        (
            "Version 14 dropped support for Node.js 4.0.0.",
            "Version 4.0.0 dropped support for Node.js 14; the minimum is now Node.js 16.",
            "claims 14; the context says 4.0.0",
        ),
        (
            "Volume discounts: 100% off for 10-249 seats.",
            "Volume discounts: 10% off for 100-249 seats and 15% off for 250 seats or more.",
            "claims 100%; the context says 10%",
        ),
    ],
)
def test_two_numbers_of_a_copied_passage_exchanged_are_a_conflict(
    claim: str, context: str, message: str
) -> None:
    found = check_numbers(claim, context, context)
    assert [f.message for f in found if f.severity == "conflict"] == [message]
    assert check_numbers(context, context, context) == []


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # One range's ends, one list's items, one date's day and year: alike either way round.
        (
            "Carry-on bags between 8 and 5 kg are free.",
            "Carry-on bags between 5 and 8 kg are free.",
        ),
        ("It runs on Windows 11 and 10.", "It runs on Windows 10 and 11."),
        ("Pens are kept at 8–2 °C.", "Pens are kept at 2–8 °C."),
        (
            "Mara Santangelo (born 1981 June 28) is a former player.",
            "Mara Santangelo (born 28 June 1981) is a former player.",
        ),
        (
            "The bill passed on March 2024, 1 and took effect.",
            "The bill passed on March 1, 2024 and took effect.",
        ),
    ],
)
def test_numbers_exchanged_within_a_range_a_list_or_a_date_are_no_conflict(
    claim: str, context: str
) -> None:
    assert not [f for f in check_numbers(claim, context, context) if "context says" in f.message]


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # The context's own words with a "not" put in deny them, though no word after the
        # "not" says anything alone.
        (
            "Recurring payments such as subscriptions will not still go through.",
            "Recurring payments such as subscriptions will still go through.",
        ),
        (
            "A third of the votes went to the proposal, and the rest were not against it.",
            "A third of the votes went to the proposal, and the rest were against it.",
        ),
        ("Members can't bring it with them.", "Members can bring it with them."),
        # And the other way round: the claim affirms what the context denies.
        (
            "Recurring payments such as subscriptions will still go through.",
            "Recurring payments such as subscriptions will not still go through.",
        ),
    ],
)
def test_a_context_sentence_with_a_not_put_in_is_a_negation(claim: str, context: str) -> None:
    [finding] = check_negation(claim, context, 1.0)
    assert (finding.kind, finding.severity) == ("negation", "conflict")


def test_a_clause_that_keeps_its_contexts_own_not_is_no_negation() -> None:
    fuel = "Fuel delivery is covered, but the cost of the fuel itself is not."
    assert check_negation("The cost of the fuel itself is not.", fuel, 1.0) == []


def test_a_day_of_the_year_the_contexts_give_only_with_another_year_is_a_conflict() -> None:
    kenney = (
        "Emma Rose Kenney (born September 14, 1999) is an American actress known for her roles"
        " in Epic (2013) and Bittersweet (2008). She voiced a girl in Ice Age (2002)."
    )
    claim = (
        "Emma Rose Kenney (born September 14, 2002) is an American actress known for her roles"
        " in Epic (2013) and Bittersweet (2008)."
    )
    [born] = check_dates(claim, kenney, kenney)
    assert born.message == "claims 14 September 2002; the context says 14 September 1999"
    assert check_dates("Emma Rose Kenney was born on 14 September 1999.", kenney, kenney) == []
    assert check_dates("She voiced a girl in Ice Age (2002).", kenney, kenney) == []


@pytest.mark.parametrize(
    ("claim", "context", "said"),
    [
        # The context writes the claim's number too, but beside other words.
        (
            "Priority 2 (site outage) is answered within 15 minutes.",
            "Priority 1 (site outage) is answered within 15 minutes; Priority 2 within a day.",
            "claims 2; the context says 1",
        ),
        (
            "The Tokyo office works 10:00-19:00 JST (UTC+19).",
            "The Tokyo office works 10:00-19:00 JST (UTC+9).",
            "claims 19; the context says 9",
        ),
    ],
)
def test_a_number_put_where_the_context_writes_another_is_a_conflict(
    claim: str, context: str, said: str
) -> None:
    [finding] = check_numbers(claim, context, context)
    assert (finding.severity, finding.message) == ("conflict", said)


@pytest.mark.parametrize(
    "claim",
    [
        # The context writes the claim's number beside the words after it as well.
        "You have 30 days to send it back.",
        # Each number in its own place.
        "Priority 2 is answered within a day.",
    ],
)
def test_a_number_the_context_writes_in_its_place_too_is_no_conflict(claim: str) -> None:
    context = (
        "You have 14 days to cancel and 30 days to send it back. Priority 1 (site outage) is"
        " answered within 15 minutes; Priority 2 is answered within a day."
    )
    assert not [f for f in check_numbers(claim, context, context) if f.severity == "conflict"]


@pytest.mark.parametrize(
    ("claim", "context", "said"),
    [
        # The context has both words; the claim puts one where the context has the other.
        (
            "Express delivery has a maximum charge of $4 and a maximum of $20.",
            "Express delivery has a minimum charge of $4 and a maximum of $20.",
            ("maximum", "minimum"),
        ),
        (
            "Boarding ends 20 minutes after regional departures and 40 minutes before"
            " long-haul departures.",
            "Boarding ends 20 minutes before regional departures and 40 minutes before"
            " long-haul departures.",
            ("after", "before"),
        ),
        (
            "The museum is closed from 9 am to 5 pm and is closed on Tuesdays.",
            "The museum is open from 9 am to 5 pm and is closed on Tuesdays.",
            ("closed", "open"),
        ),
        (
            "Only the earliest two releases get fixes.",
            "Only the latest two releases get fixes.",
            ("earliest", "latest"),
        ),
    ],
)
def test_a_word_put_where_the_context_has_its_opposite_is_an_opposite(
    claim: str, context: str, said: tuple[str, str]
) -> None:
    [finding] = check_negation(claim, context, 1.0)
    assert finding.kind == "opposite"
    assert (
        finding.message
        == f"the claim says \u201c{said[0]}\u201d; the context says \u201c{said[1]}\u201d"
    )


def test_a_word_the_context_puts_in_the_same_place_is_no_opposite() -> None:
    context = "Boarding ends 20 minutes before regional departures and 40 minutes after check-in."
    assert check_negation("Boarding ends 40 minutes after check-in.", context, 1.0) == []


def test_a_month_another_sentence_names_alone_does_not_state_a_day_of_it() -> None:
    # "in May" is when filming starts; the passage opens the film on 24 March 2017 (the claim
    # glued to the next sentence, as news text is).
    passage = (
        "The film opens in UK cinemas on 24 March 2017.It was announced in January that Ana"
        " Ruiz had been cast as the lead."
    )
    contexts = f"The remake follows the 1994 stage version. Filming starts in May. {passage}"
    claim = passage.replace("24 March 2017", "24 May 2017")
    [finding] = check_dates(claim, passage, contexts)
    assert (finding.kind, finding.severity, finding.message) == (
        "dates",
        "conflict",
        "claims 24 May 2017; the context says 24 March 2017",
    )
    # A day of the claim's month stated elsewhere, or the passage's own date, is no conflict.
    both = contexts.replace("in May", "on 24 May 2017")
    assert check_dates("Filming starts on 24 May 2017.", passage, both) == []
    assert check_dates(passage, passage, contexts) == []


def test_an_amount_after_a_currency_sign_is_bound_by_the_word_before_it() -> None:
    # "£2,980,815" had no neighbours (the sign is no word), its commas read as a list of
    # amounts, and "spent" after "£2,980,815, Fabrikam" was that number's word: the claim's
    # amount, another clause's, passed.
    context = (
        "Northwind, the market leader, spent £2,956,737, while the Contoso campaign's budget "
        "was £2,980,815, Fabrikam spent £1,580,575 on advertising."
    )
    [finding] = check_numbers("Northwind spent £2,980,815.", context, context)
    assert finding.severity == "conflict"
    # The amount named is Northwind's, not Fabrikam's, which has the same word before it.
    assert finding.message == "claims £2,980,815; the context says £2,956,737"
    assert check_numbers("Northwind spent £2,956,737.", context, context) == []
    assert check_numbers("Fabrikam spent £1,580,575.", context, context) == []
