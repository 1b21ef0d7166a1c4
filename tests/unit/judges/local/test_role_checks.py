"""The checks of facts bound to a role, and the reading of times, days and routes they
compare: no model is loaded here."""

from __future__ import annotations

from rag_eval_pytest.judges.local.checks import check_numbers
from rag_eval_pytest.judges.local.role_checks import check_days, check_routes, check_times
from rag_eval_pytest.judges.local.roles import routes, times, weekdays

VOUCHER = "You get 100 points for a 5 euro voucher."
HOURS = "The store opens at 9 am and closes at 6 pm."
TRANSFER = "Your salary is moved from your current account to your savings account."


def test_a_number_counts_the_noun_after_it() -> None:
    swapped = check_numbers("You get 5 points for every 100 euro voucher.", VOUCHER, VOUCHER)
    assert [f.message for f in swapped] == [
        "claims 5 points; the context says 100 points",
        "claims 100 euro; the context says 5 euro",
    ]
    assert all(f.severity == "conflict" for f in swapped)
    assert check_numbers("A 5 euro voucher earns you 100 points.", VOUCHER, VOUCHER) == []
    # Words between a number and its unit, or a number without one, are no other unit.
    refunds = "Refunds are accepted within 30 calendar days; exchanges within 14 days."
    assert check_numbers("Refunds are accepted within 30 days.", refunds, refunds) == []
    assert check_numbers("It costs 5.", VOUCHER, VOUCHER) == []


def test_times_of_day_with_their_role() -> None:
    assert [(t.minutes, t.exact, t.role, t.text) for t in times(HOURS)] == [
        (540, True, "start", "opens at 9 am"),
        (1080, True, "end", "closes at 6 pm"),
    ]
    assert [(t.minutes, t.role) for t in times("Maintenance is between 1 and 4 am.")] == [
        (60, "start"),
        (240, "end"),
    ]
    assert [(t.minutes, t.role) for t in times("open 9am-5pm, or from 11 to 2 pm")] == [
        (540, "start"),
        (1020, "end"),
        (660, "start"),
        (840, "end"),
    ]
    [morning] = times("It opens at 8 in the morning.")
    assert (morning.minutes, morning.text) == (480, "opens at 8 am")
    [clock] = times("The library opens at 8:00.")
    assert not clock.exact and clock.same(morning)  # 8:00 is 8 am or 8 pm
    [late] = times("Check-out is by 11 am.")
    assert late.words == {"check-out"}


def test_swapped_times_and_am_for_pm_are_conflicts() -> None:
    swapped = check_times("The store opens at 6 pm and closes at 9 am.", HOURS, HOURS)
    assert [f.message for f in swapped] == [
        "claims \u201copens at 6 pm\u201d; the context says \u201copens at 9 am\u201d",
        "claims \u201ccloses at 9 am\u201d; the context says \u201ccloses at 6 pm\u201d",
    ]
    [pm] = check_times("The store opens at 9 pm.", HOURS, HOURS)
    assert (
        pm.message == "claims \u201copens at 9 pm\u201d; the context says \u201copens at 9 am\u201d"
    )
    assert check_times("The store is open from 9 am to 6 pm.", HOURS, HOURS) == []
    museum = "The museum is open from 10 am to 5 pm, and the last entry is at 4 pm."
    assert check_times("You can get in until 4 pm.", museum, museum) == []
    [entry] = check_times("The last entry is at 5 pm.", museum, museum)
    assert entry.message == "claims 5 pm; the context says 4 pm"
    [gap] = check_times("The store opens at 7 am.", "The store is big.", "The store is big.")
    assert (gap.severity, gap.message) == (
        "gap",
        "claims opens at 7 am; the contexts state no such time",
    )
    assert check_times("It opens at 9 am.", "x", "It opens at 9.") == []


def test_days_of_the_week() -> None:
    assert [(sorted(d.days), d.text) for d in weekdays("Mon-Fri, Sundays and weekends")] == [
        ([0, 1, 2, 3, 4], "Mon-Fri"),
        ([6], "Sundays"),
        ([5, 6], "weekends"),
    ]
    support = "Phone support is available Monday to Friday."
    [finding] = check_days("Phone support is available Tuesday to Saturday.", support)
    assert finding.message == "claims Tuesday to Saturday; the context says Monday to Friday"
    assert check_days("You can call on Wednesdays.", support) == []
    deliveries = (
        "Parcels are delivered Monday through Saturday. There are no deliveries on Sundays."
    )
    assert check_days("Parcels come from Monday to Saturday, but not on Sundays.", deliveries) == []
    [every] = check_days("Parcels are delivered every day.", deliveries)
    assert every.message == "claims every day; the context says Monday through Saturday"
    store = "The store opens at 9 am, Monday to Saturday. It is closed on Sundays."
    [sunday] = check_days("The store is open on Sundays.", store)
    assert sunday.message == "claims Sundays; the context says not on Sundays"
    # A day said closed where the context says open, each clause of "and" its own.
    clinic = "The clinic is open on Saturday mornings and closed on Sundays."
    [saturday] = check_days("The clinic is closed on Saturdays.", clinic)
    assert saturday.message == "claims not on Saturdays; the context says Saturday"
    assert check_days("The clinic is open on Saturday mornings.", clinic) == []
    assert check_days("The clinic is closed on Sundays.", clinic) == []
    # Every week against every other week, each clause's own thing.
    bins = "Rubbish is collected every Tuesday; recycling every other Friday."
    [fortnight] = check_days("Rubbish is collected every other Tuesday.", bins)
    assert fortnight.message == "claims every other Tuesday; the context says every Tuesday"
    [weekly] = check_days("Recycling is collected every Friday.", bins)
    assert weekly.message == "claims every Friday; the context says every other Friday"
    assert check_days("Recycling is collected every other Friday.", bins) == []
    # Days of a sentence about something else say nothing of the claim's.
    assert check_days("The report is due on Friday.", "Meetings are on Mondays.") == []


def test_the_two_ends_of_a_route() -> None:
    [route] = routes(TRANSFER)
    assert route.text == "from your current account to your savings account"
    assert routes("Open from Monday to Friday.") == ()  # days, the day check's
    wrong = "Your salary is moved from your savings account to your current account."
    [finding] = check_routes(wrong, TRANSFER)
    assert finding.message == (
        "claims from your savings account to your current account; the context says from "
        "your current account to your savings account"
    )
    assert check_routes(TRANSFER, TRANSFER) == []
    both = "Flights go from Paris to Berlin at 7 am and from Berlin to Paris at 6 pm."
    assert check_routes("There is a flight from Berlin to Paris.", both) == []


def test_days_are_bound_to_the_clause_of_their_own_thing() -> None:
    """A sentence naming two things' days: each of the claim's clauses is read against the
    context's clause about its own thing, not against every day the sentence names."""
    context = "Deliveries arrive on Mondays and pickups happen on Fridays."
    [swapped] = check_days("Deliveries arrive on Fridays and pickups happen on Mondays.", context)
    assert swapped.message == "claims Fridays for deliveries; the context says Mondays"
    assert check_days("Pickups happen on Mondays.", context)
    assert check_days("Deliveries arrive on Mondays and pickups happen on Fridays.", context) == []
    assert check_days("Pickups happen on Fridays.", context) == []
    # "and" between days is no new clause; the clause sharing most of the claim's words is its.
    assert (
        check_days("The store is open on Tuesday.", "The store is open Monday and Tuesday.") == []
    )
    markets = "The farmers' market opens on Saturdays, while the flea market opens on Sundays."
    assert check_days("The flea market opens on Saturdays.", markets)
    assert check_days("The flea market opens on Sundays.", markets) == []


def test_days_a_later_clause_gives_with_its_own_times_are_that_clauses() -> None:
    gym = "The gym is open 24 hours on weekdays and from 8 am to 8 pm at weekends."
    [weekends] = check_days("The gym is open 24 hours at weekends.", gym)
    assert weekends.message == "claims weekends for gym; the context says weekdays"
    # The later clause leaves out "The gym is open": its times say which days it is about.
    assert check_days("The gym is open from 8 am to 8 pm at weekends.", gym) == []
    assert check_days("The gym is open 24 hours on weekdays.", gym) == []


def test_a_thing_said_closed_where_its_sentence_gives_it_hours_is_an_opposite() -> None:
    store = "On Christmas Eve the store closes at 2 pm. The store is closed on Christmas Day."
    [eve] = check_times("The store is closed on Christmas Eve.", store, store)
    assert (eve.kind, eve.message) == (
        "opposite",
        "claims it is closed; the context gives its hours (closes at 2 pm)",
    )
    assert check_times("The store is closed on Christmas Day.", store, store) == []


def test_the_same_time_at_the_other_end_of_a_span_is_a_conflict() -> None:
    check_in = "Check-in is after 3 pm."
    [turned] = check_times("Check-in is before 3 pm.", check_in, check_in)
    said = "claims \u201cbefore 3 pm\u201d; the context says \u201cafter 3 pm\u201d"
    assert turned.message == said
    assert check_times("Check-in is after 3 pm.", check_in, check_in) == []
    # The same time at either end of one span is no conflict.
    shop = "The shop is open from 9 am to 9 pm."
    assert check_times("The shop is open until 9 pm.", shop, shop) == []


def test_a_day_is_bound_to_the_end_of_the_span_its_verb_names() -> None:
    sale = "The sale starts on Sunday at midnight and ends on Friday."
    [day] = check_days("The sale ends on Sunday.", sale)
    assert day.message == "claims Sunday for sale; the context says Friday"
    assert check_days("The sale ends on Friday.", sale) == []
    assert check_days("The sale starts on Sunday.", sale) == []


def test_the_end_of_a_span_is_read_with_the_days_of_its_start() -> None:
    # "to 4 pm" is the weekend's as much as "10 am" is; "10:00" parts no clause.
    chat = (
        "Live chat is staffed Monday to Friday from 8:00 a.m. to 8:00 p.m. Eastern Time."
        " Weekend chat coverage, Saturday and Sunday 10:00 a.m. to 4:00 p.m. Eastern Time."
    )
    [end] = check_times("Weekend chat, Saturday and Sunday 10:00 a.m. to 8:00 p.m.", chat, chat)
    assert end.message == "claims \u201cto 8 pm\u201d; the context says \u201cto 4 pm\u201d"
    assert (
        check_times("Weekend chat, Saturday and Sunday 10:00 a.m. to 4:00 p.m.", chat, chat) == []
    )
    assert [t.words for t in times("Saturday and Sunday 10:00 a.m. to 4:00 p.m.")] == [
        frozenset({"sunday"}),
        frozenset({"sunday"}),
    ]


def test_a_range_of_days_with_another_start_or_end_is_a_conflict_of_days() -> None:
    lines = "Our phone lines are open from 8:00 to 18:30 Monday to Friday."
    [later] = check_days("Our phone lines are open Tuesday to Friday.", lines)
    assert later.message == "claims Tuesday to Friday; the context says Monday to Friday"
    assert check_days("Our phone lines are open Monday to Thursday.", lines) != []
    # The same range in other words, or one the context states as well, is no conflict.
    assert check_days("Our phone lines are open Mon-Fri.", lines) == []
    late = "The library is open Monday to Friday. Late opening runs Monday to Thursday."
    assert check_days("Late opening runs Monday to Thursday.", late) == []
