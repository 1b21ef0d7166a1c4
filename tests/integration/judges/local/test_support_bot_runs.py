"""A support bot checked offline, as a new user would (``--rag-judge=local``): its good answers
in other words never fail (each passes, or the judge is unsure and says an LLM judge must
decide), and its answers with a swapped fact never pass. Each case is one the offline judge
once decided wrong."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import case, read_report

RETURNS = (
    "Items can be returned within 30 days of delivery for a full refund. "
    "Refunds are issued within 5 business days."
)
PLANS = (
    "The Pro plan includes phone support and a dedicated manager. "
    "The Basic plan includes email support only."
)
GOOD = [
    case(
        "uk",
        "Do you ship to the UK?",
        answer="We do ship to the UK, Norway and Switzerland.",
        contexts=[
            "We ship to the United Kingdom, Norway and Switzerland. "
            "Shipping to other countries is not available."
        ],
    ),
    case(
        "annual",
        "How much does annual billing save?",
        answer="Annual billing saves you 15 percent.",
        contexts=["Annual billing saves 15% compared with monthly billing."],
    ),
    case(
        "close",
        "How do I close my account?",
        answer="Open Settings, choose Account and click Close account.",
        contexts=["To close your account, go to Settings > Account and select Close account."],
    ),
    case(
        "returns",
        "How long do I have to return an item?",
        answer="You have 30 days from delivery to return an item.",
        contexts=[RETURNS],
    ),
    # The second clause leaves out "The hotel is": 20 minutes is the beach's.
    case(
        "beach",
        "How far is the hotel from the beach?",
        answer="The hotel is 20 minutes from the beach.",
        contexts=["The hotel is 5 minutes from the station and 20 minutes from the beach."],
    ),
    # Twice the size of the Rome team: 20, worked out. Never failed; an LLM reads it.
    case(
        "rome_team",
        "How big is the Rome team?",
        answer="The Rome team has 20 people.",
        contexts=["Our Madrid team has grown to 40 people, twice the size of the Rome team."],
    ),
    # A bound that the context's weight is within.
    case(
        "laptop_weight",
        "How heavy is the laptop?",
        answer="The laptop weighs under 1.5 kg.",
        contexts=["The laptop weighs 1.3 kg."],
    ),
    # The year's price of the first clause read into the second's.
    case(
        "child_membership",
        "How much is membership for children?",
        answer="Children pay £40 a year.",
        contexts=["Membership costs £80 per year for adults and £40 for children."],
    ),
    # The weekends' hours are the second clause's.
    case(
        "weekend_gym",
        "When can I train on a Saturday?",
        answer="At weekends the Hillside gym opens at 7 am and closes at 4 pm.",
        contexts=[
            "The Hillside gym is open weekdays from 5:30 to 22:00 and weekends from 7:00 to "
            "16:00. Towels cost 2 euros."
        ],
    ),
    # "between ... and" is the span "from ... to".
    case(
        "desk_hours",
        "When is the library desk staffed?",
        answer="The library desk is staffed between 10 am and 3 pm.",
        contexts=["The library desk is staffed from 10:00 to 15:00."],
    ),
    # "Admin" is the start of "Administration".
    case(
        "admin_office",
        "Where is the admin office?",
        answer="Admin is in room B12 on the first floor.",
        contexts=[
            "The Administration Office is on the first floor, room B12. "
            "The Finance Office is on the ground floor."
        ],
    ),
    # A case the context's bound covers: never failed, an LLM reads it.
    case(
        "long_stay",
        "I am staying 20 nights. Do I get the long-stay rate?",
        answer="Yes. A 20-night stay gets the long-stay rate.",
        contexts=["Stays longer than 14 nights get the long-stay rate."],
    ),
    # Another number, denied: no rival value of the claim's.
    case(
        "late_parcel",
        "My parcel is 2 days late. Is the shipping fee refunded?",
        answer="No, a parcel that is 2 days late does not get its shipping fee refunded.",
        contexts=[
            "The shipping fee is refunded when a parcel arrives 5 or more days late. "
            "A parcel one day late gets a voucher instead."
        ],
    ),
    # Two amounts of one thing: 50% is a reminder's as much as 90% is.
    case(
        "reminders",
        "Do you remind me before my storage is full?",
        answer="Yes, an email reminder goes out once you have used 50% of your storage.",
        contexts=["Email reminders are sent at 50% and 90% of your storage quota."],
    ),
    # A verb that opens an instruction, and an adverb that opens an answer, are no names.
    case(
        "instruction",
        "How do I connect to Wi-Fi?",
        answer="Tap Settings, select Wi-Fi and choose your network.",
        contexts=["On iOS and Android, open Settings, select Wi-Fi and choose your network."],
    ),
    case(
        "adverb",
        "Can I get a refund on a sale item?",
        answer="Sadly not, sale items cannot be refunded.",
        contexts=["At our Northgate and Riverside stores, sale items cannot be refunded."],
    ),
    # Britain is the United Kingdom; "Toppings" opens the answer as a word, not a name.
    case(
        "britain",
        "Where do you ship?",
        answer="We ship to Britain, France and Spain.",
        contexts=["We ship to the United Kingdom, France and Spain."],
    ),
    case(
        "toppings",
        "What is on the Hawaiian pizza?",
        answer="Toppings are cheese, ham and pineapple.",
        contexts=["The Hawaiian pizza is topped with cheese, ham and pineapple."],
    ),
    # "no heavier than" is at most, not "heavier than".
    case(
        "no_heavier",
        "Do you ship small parcels?",
        answer="Parcels no heavier than 2 kg ship for $4.",
        contexts=["Parcels between 1 and 2 kg ship for $4. Heavier parcels ship for $9."],
    ),
    # "the 1st" is "the first day", not the 5th that follows.
    case(
        "rent_first",
        "When is rent due?",
        answer="Rent is due on the 1st of each month.",
        contexts=[
            "Rent is payable on the first day of every month; a late fee applies after the 5th."
        ],
    ),
    # 15 is the context's 10 and 5 added up.
    case(
        "rooms_total",
        "How many rooms does the hotel have?",
        answer="There are 15 rooms in total.",
        contexts=["The hotel has 10 double rooms and 5 suites."],
    ),
    # 2 h 30 min is two and a half hours; £400 is £1,200 in three instalments.
    case(
        "flight_time",
        "How long is the flight?",
        answer="The flight takes about two and a half hours.",
        contexts=["Flight time is 2 h 30 min."],
    ),
    case(
        "instalments",
        "How can I pay for the course?",
        answer="The course costs £1,200, payable in three instalments of £400.",
        contexts=["The course fee is £1,200, which can be paid in 3 instalments."],
    ),
    # The context's own words: its "over $50" holds, whatever its plain $4.99 counts.
    case(
        "free_shipping_over",
        "Which orders ship free?",
        answer="Orders over $50 ship free.",
        contexts=["Orders over $50 ship free; smaller orders pay $4.99."],
    ),
    # The context's own sentence of two amounts: each is its own clause's, in words too.
    case(
        "kayak_rates",
        "How much is kayak hire?",
        answer="Kayak hire costs twelve dollars per hour or 45 dollars per day.",
        contexts=["Kayak hire costs 12 dollars per hour or 45 dollars per day."],
    ),
    case(
        "bike_rates",
        "How much is bike rental?",
        answer="Bike rental costs 8 euros per hour or 30 euros per day.",
        contexts=["Bike rental costs 8 euros per hour or 30 euros per day."],
    ),
    case(
        "card_replacement",
        "How much is a new student card?",
        answer="The first replacement costs £15 and any further replacements cost £25.",
        contexts=[
            "Lost student cards can be replaced at the Campus Card Office. The first"
            " replacement costs £15 and any further replacements cost £25."
        ],
    ),
    # A name's number in words is its number in digits.
    case(
        "refund_tier",
        "Which team handles refunds?",
        answer="The Tier-two team handles refunds.",
        contexts=["Refunds are handled by the Tier-2 support team."],
    ),
]
SWAPPED = [
    # 30 days in the sentence about returns; 5 business days in the one about refunds.
    case(
        "return_window",
        "How long do I have to return an item?",
        answer="You can return an item within 5 days of delivery.",
        contexts=[RETURNS],
    ),
    case(
        "pickups",
        "When do deliveries and pickups happen?",
        answer="Deliveries arrive on Fridays and pickups happen on Mondays.",
        contexts=["Deliveries arrive on Mondays and pickups happen on Fridays."],
    ),
    # 15 is the express price of the context's other sentence.
    case(
        "standard",
        "How long does standard shipping take?",
        answer="Standard shipping takes 15 days.",
        contexts=[
            "Standard shipping takes 3 to 5 business days. Express shipping costs 15 dollars."
        ],
    ),
    case(
        "refund_time",
        "How long do refunds take?",
        answer="Refunds are processed within two weeks.",
        contexts=["Refunds are processed within two business days."],
    ),
    # Phone support is the Pro plan's; the Basic plan's sentence gives email support instead.
    case(
        "phone_support",
        "Which plans include phone support?",
        answer="Both the Basic and the Pro plan include phone support.",
        contexts=[PLANS],
    ),
    case(
        "basic_support",
        "Does the Basic plan include phone support?",
        answer="Phone support is included in the Basic plan.",
        contexts=[PLANS],
    ),
    # The seniors' share, read against the students' clause of the same sentence.
    case(
        "student_discount",
        "How much do students save?",
        answer="Students get a 20% discount.",
        contexts=["Students get a 10% discount and seniors a 20% discount."],
    ),
    # Free above 50 dollars only: "all orders" claims more than the context gives.
    case(
        "free_shipping",
        "Is shipping free?",
        answer="Shipping is free on all orders.",
        contexts=["Shipping is free on orders over $50."],
    ),
    # The sentence closest to it allows returns; the next one denies them for sale items.
    case(
        "sale_returns",
        "Can I return a sale item?",
        answer="Sale items can be returned within 30 days.",
        contexts=["Items can be returned within 30 days. Sale items cannot be returned."],
    ),
    # The headquarters are in Lyon; Paris is where the sales office is.
    case(
        "headquarters",
        "Where are your headquarters?",
        answer="Our headquarters are in Paris.",
        contexts=["Our headquarters are in Lyon. We have a sales office in Paris."],
    ),
    # $10 is the hourly price; a day costs $40.
    case(
        "parking",
        "How much is parking for a day?",
        answer="Parking costs $10 per day.",
        contexts=["Parking costs $10 per hour, up to $40 per day."],
    ),
    # The same words, the two plans in each other's places.
    case(
        "cheaper_plan",
        "Which plan is cheaper?",
        answer="The Pro plan is cheaper than the Basic plan.",
        contexts=["The Basic plan is cheaper than the Pro plan."],
    ),
    # $15 is the Standard plan's price, the sentence closest to the claim.
    case(
        "business_price",
        "How much is the Business plan?",
        answer="The Business plan costs $15 per month.",
        contexts=[
            "Our Standard plan costs $15 per month and includes 2 users. "
            "The Business plan costs $40 per month and includes 10 users."
        ],
    ),
    # 7 days is Canada's; "US" is the country, not the word "us".
    case(
        "us_shipping",
        "How long does shipping to the US take?",
        answer="Shipping to the US takes 7 days.",
        contexts=["Shipping to the US takes 3 days and shipping to Canada takes 7 days."],
    ),
    # Two sentences' facts joined: neither says who founded the museum.
    case(
        "founder",
        "Who founded the museum?",
        answer="The museum was founded in 1920 by Anna Berg.",
        contexts=["The museum was founded in 1920. Its first director was Anna Berg."],
    ),
    # Every day is the members'; non-members get in free on Mondays.
    case(
        "free_entry",
        "When do non-members get free entry?",
        answer="Non-members get free entry every day.",
        contexts=["Members get free entry every day. Non-members get free entry on Mondays."],
    ),
    # "Half" is a share: the context's is a quarter.
    case(
        "annual_share",
        "How many users chose the annual plan?",
        answer="Half of the users chose the annual plan.",
        contexts=["A quarter of the users chose the annual plan."],
    ),
    # 16 GB is an upgrade; the laptop comes with 8.
    case(
        "laptop_ram",
        "How much RAM does the laptop have?",
        answer="The laptop has 16 GB of RAM.",
        contexts=["The laptop comes with 8 GB of RAM, upgradable to 16 GB."],
    ),
    # Project owners can delete projects too.
    case(
        "delete_projects",
        "Who can delete projects?",
        answer="Only admins can delete projects.",
        contexts=["Admins and project owners can delete projects."],
    ),
    # No clinic of that name: the Lakeside one is on Riverside Road.
    case(
        "clinic_name",
        "Which clinic is open on Saturdays?",
        answer="The Riverside Dental Clinic is open on Saturdays.",
        contexts=["Lakeside Dental Clinic, on Riverside Road, is open on Saturdays."],
    ),
    # Terminal 2 is the Madrid flights'.
    case(
        "terminal",
        "Which terminal does the Rome flight leave from?",
        answer="The flight to Rome leaves from Terminal 2.",
        contexts=["Flights to Rome leave from Terminal 1; flights to Madrid from Terminal 2."],
    ),
    # 24 hours is the weekdays'; at weekends the gym opens from 8 am to 8 pm.
    case(
        "gym_weekends",
        "Is the gym open all day at weekends?",
        answer="The gym is open 24 hours at weekends.",
        contexts=["The gym is open 24 hours on weekdays and from 8 am to 8 pm at weekends."],
    ),
    # Cars and cyclists in each other's places.
    case(
        "bridge",
        "Can I cycle over the bridge?",
        answer="The bridge is closed to cars but open to cyclists.",
        contexts=["The bridge is closed to cyclists but open to cars."],
    ),
    # The cafe is the ground floor's; the first floor's clause gives it meeting rooms.
    case(
        "cafe_floor",
        "Where is the cafe?",
        answer="The first floor has the cafe.",
        contexts=["The cafe is on the ground floor; the first floor has meeting rooms."],
    ),
    # Open until 2 pm on Christmas Eve, not closed.
    case(
        "christmas_eve",
        "Is the store open on Christmas Eve?",
        answer="The store is closed on Christmas Eve.",
        contexts=["On Christmas Eve the store closes at 2 pm."],
    ),
    # 2015 is the Paris office's year.
    case(
        "london_office",
        "When did the London office open?",
        answer="The London office opened in 2015.",
        contexts=["Our London office opened in 2010 and our Paris office in 2015."],
    ),
    # The delay is the Cork flight's.
    case(
        "dublin_flight",
        "Is the Dublin flight delayed?",
        answer="The Dublin flight is delayed by two hours.",
        contexts=["The Dublin flight is on time; the Cork flight is delayed by two hours."],
    ),
    # Lunch on day one only.
    case(
        "lunch",
        "Is lunch included?",
        answer="Lunch is included on both days.",
        contexts=["Lunch is included on day one; on day two participants buy their own lunch."],
    ),
    # Opened, not closed.
    case(
        "bridge_opening",
        "What did the mayor do in May?",
        answer="The mayor, Lena Vogel, closed the bridge.",
        contexts=["The bridge was opened by the mayor, Lena Vogel, in May."],
    ),
    # 40 is the Madrid team's.
    case(
        "rome_size",
        "How big is the Rome team?",
        answer="Our Rome team has 40 people.",
        contexts=["Our Madrid team has grown to 40 people, twice the size of the Rome team."],
    ),
    # The condition "for members who have joined the loyalty scheme" left out.
    case(
        "missed_class",
        "Is a missed class charged?",
        answer="The first missed class in any month is always free of charge.",
        contexts=[
            "The first missed class in any month is free of charge for members who have "
            "joined the loyalty scheme. Later missed classes cost 5 euros."
        ],
    ),
    # The context says leave is approved by the line manager, "not HR".
    case(
        "leave_hr",
        "Who approves leave?",
        answer="Leave is approved by HR.",
        contexts=["Leave is approved by your line manager, not HR."],
    ),
    # Each of these was decided supported: the plans in each other's places; "before" where
    # the context says "after"; a "but not" left out; "most" where it says "some"; the day the
    # sale starts given as the day it ends.
    case(
        "plans_swapped",
        "Which plan has more storage?",
        answer="Plan A has more storage than Plan B.",
        contexts=["Plan B has more storage than Plan A."],
    ),
    case(
        "check_in_before",
        "When is check-in?",
        answer="Check-in is before 3 pm.",
        contexts=["Check-in is after 3 pm."],
    ),
    case(
        "street_parking",
        "Can I park on the street?",
        answer="You can park on the street.",
        contexts=["You can park on the street during the day but not overnight."],
    ),
    case(
        "most_orders",
        "How fast do orders ship?",
        answer="Most orders ship within 2 days.",
        contexts=["Some orders ship within 2 days; most take a week."],
    ),
    case(
        "sale_ends",
        "When does the sale end?",
        answer="The sale ends on Sunday at midnight.",
        contexts=["The sale starts on Sunday at midnight and ends on Friday."],
    ),
    # Free is the lobby's; in rooms Wi-Fi costs $5 a day.
    case(
        "wifi_rooms",
        "Is Wi-Fi free?",
        answer="Wi-Fi is free in all rooms.",
        contexts=["Wi-Fi is free in the lobby and costs $5 per day in rooms."],
    ),
    # Cash is the card sentence's other clause, which says it is not accepted.
    case(
        "cash_or_card",
        "How do I pay?",
        answer="You can pay by cash or card at the counter.",
        contexts=["You can pay by card at the counter; cash is not accepted."],
    ),
    # The trains in each other's places, before a condition the answer leaves out.
    case(
        "express_train",
        "Which train is faster?",
        answer="The express train is faster than the regional train.",
        contexts=["The regional train is faster than the express train on Sundays."],
    ),
    # Using the app costs $3 a month.
    case(
        "free_app",
        "Is the app free?",
        answer="The app is free to download and free to use.",
        contexts=["The app is free to download; using it costs $3 a month."],
    ),
    # Red is a colour the jacket does not come in.
    case(
        "jacket_colours",
        "Which colours does the Trail jacket come in?",
        answer="The Trail jacket comes in black, navy, olive and red.",
        contexts=["The Trail jacket comes in black, navy and olive. It is waterproof."],
    ),
    # Up to 6 devices is the Family plan's most; the Solo plan covers 1 device.
    case(
        "solo_devices",
        "How many devices does the Solo plan cover?",
        answer="You can use the Solo plan on up to 6 devices.",
        contexts=["The Family plan covers up to 6 devices; the Solo plan covers 1 device."],
    ),
    # The team lead approves; HR logs.
    case(
        "leave_logged",
        "Who logs leave requests?",
        answer="Your team lead logs leave requests.",
        contexts=["Leave requests are approved by your team lead, then logged by HR."],
    ),
    # Breakfast is included only for guests who book directly.
    case(
        "breakfast_all",
        "Is breakfast included?",
        answer="Breakfast is included for all guests.",
        contexts=["Breakfast is included for guests booking directly; others pay $15."],
    ),
    # Towels cost extra; the clinic is open on Saturday mornings.
    case(
        "towels_included",
        "What does the cleaning fee cover?",
        answer="The $50 fee covers cleaning, linen and towels.",
        contexts=["The $50 fee covers cleaning and linen; towels cost $5 extra."],
    ),
    case(
        "closed_saturday",
        "Is the clinic open on Saturday?",
        answer="The clinic is closed on Saturdays.",
        contexts=["The clinic is open on Saturday mornings and closed on Sundays."],
    ),
    # 15 hours is web browsing's, video playback's 10.
    case(
        "battery_video",
        "How long does the battery last?",
        answer="The battery lasts up to 15 hours of video playback.",
        contexts=[
            "The battery lasts up to 10 hours of video playback or 15 hours of web browsing."
        ],
    ),
    # The second floor is the pharmacy's, the third the clinic's.
    case(
        "third_floor",
        "Where is the pharmacy?",
        answer="The pharmacy is on the third floor.",
        contexts=["The pharmacy is on the 2nd floor; the clinic is on the 3rd floor."],
    ),
    # Reception is on 100; 400 is the night manager's.
    case(
        "reception_extension",
        "What number do I call?",
        answer="Call reception on extension 400.",
        contexts=[
            "After 10 pm, call the night manager on extension 400; before that, call"
            " reception on 100."
        ],
    ),
    # The line manager approves up to $500; above that is the finance director's.
    case(
        "expenses_over",
        "Who approves my expenses?",
        answer="Expenses over $500 are approved by your line manager.",
        contexts=[
            "Expenses up to $500 are approved by your line manager; anything above that"
            " requires sign-off from the finance director."
        ],
    ),
    # 1 February is when applications open; they close on 15 March (no year written).
    case(
        "applications_close",
        "When is the deadline?",
        answer="Applications close on 1 February.",
        contexts=["Applications open on 1 February and close on 15 March."],
    ),
    # 1.4 kg is the 14-inch model's weight; 20% the lower band's rate.
    case(
        "model_weight",
        "How heavy is the 16-inch model?",
        answer="The 16-inch model weighs 1.4 kg.",
        contexts=["The 14-inch model weighs 1.4 kg and the 16-inch model weighs 2.1 kg."],
    ),
    case(
        "tax_band",
        "What is the tax rate on high incomes?",
        answer="Income above £50,270 is taxed at 20%.",
        contexts=["Income above £12,570 is taxed at 20%, and above £50,270 at 40%."],
    ),
    # Small dogs are welcome; only other pets are not.
    case(
        "no_pets",
        "Can I bring my pet?",
        answer="Pets are not allowed.",
        contexts=["We welcome dogs under 10 kg; other pets are not allowed."],
    ),
    # Only standard shipping is free; only new customers get the discount.
    case(
        "shipping_free",
        "Is shipping free?",
        answer="Shipping is free.",
        contexts=["Standard shipping is free; express shipping costs $9."],
    ),
    case(
        "all_customers",
        "Is there a discount?",
        answer="Customers get 20% off their first order.",
        contexts=["New customers get 20% off their first order."],
    ),
    # The gym is free for hotel guests only; remote work comes after probation.
    case(
        "gym_free",
        "Is the gym free?",
        answer="The gym is free.",
        contexts=["The gym is free for hotel guests; day passes cost $15."],
    ),
    case(
        "remote_work",
        "Can I work remotely?",
        answer="Employees can work remotely two days a week.",
        contexts=["After probation, employees can work remotely two days a week."],
    ),
    # 128 GB is what the phone expands to; it stores 64 GB.
    case(
        "phone_storage",
        "How much does the phone store?",
        answer="The phone stores 128 GB.",
        contexts=["The phone stores 64 GB, expandable to 128 GB with a memory card."],
    ),
    # $500 is the Standard plan's excess; the Plus plan's is $250.
    case(
        "excess_twice",
        "What is the excess?",
        answer="The excess is $500 on the Standard plan and $500 on the Plus plan.",
        contexts=["The excess is $500 on the Standard plan and $250 on the Plus plan."],
    ),
    # "not $7,500" denies the context's amount.
    case(
        "loan_minimum",
        "What is the smallest loan?",
        answer="The minimum loan amount is not $7,500.",
        contexts=["The minimum loan amount is $7,500."],
    ),
    # 2003 euros is an amount, not a year; 8.4.0 is a version no context gives.
    case(
        "approval_limit",
        "Who signs purchase orders?",
        answer="Purchase orders below 2003 euros are signed by the team lead.",
        contexts=[
            "Purchase orders below 2,000 euros are signed by the team lead, and larger ones by"
            " procurement."
        ],
    ),
    case(
        "sdk_version",
        "Which SDK version added streaming?",
        answer="Node.js SDK version 8.4.0 added support for streaming responses.",
        contexts=["Node.js SDK version 4.2.0 added support for streaming responses."],
    ),
    # The answer's first clause denies the context's; the years and the prices are swapped
    # between the clauses.
    case(
        "pharmacy_denied",
        "Where is the pharmacy?",
        answer="The pharmacy is not on the 1st floor, next to the lifts.",
        contexts=["The pharmacy is on the 1st floor, next to the lifts."],
    ),
    case(
        "bridge_years",
        "When were the bridges built?",
        answer="The north bridge was built in 1932 and the south bridge in 1887.",
        contexts=["The north bridge was built in 1887 and the south bridge in 1932."],
    ),
    case(
        "intro_price",
        "What does the subscription cost?",
        answer="The introductory price is $15 a month for six months, then $9 a month.",
        contexts=["The introductory price is $9 a month for six months, then $15 a month."],
    ),
    # 8 pm ends the weekdays' span; the weekend's ends at 4 pm.
    case(
        "weekend_chat",
        "When is chat open at weekends?",
        answer="Weekend chat coverage, Saturday and Sunday 10:00 a.m. to 8:00 p.m.",
        contexts=[
            "Live chat support is staffed Monday to Friday from 8:00 a.m. to 8:00 p.m. Eastern"
            " Time. Weekend chat coverage, Saturday and Sunday 10:00 a.m. to 4:00 p.m. Eastern"
            " Time, is available to Business and Enterprise customers."
        ],
    ),
    # "age 6" is the sealants' age; the answer's 12 is the check-ups'.
    case(
        "sealant_age",
        "From what age are fissure sealants recommended?",
        answer="Fissure sealants are £30 per tooth and are recommended from age 12.",
        contexts=[
            "Fissure sealants are £30 per tooth and are recommended from age 6. Children under"
            " 12 receive their first check-up free of charge."
        ],
    ),
    # A year-like number where the context gives a phone number.
    case(
        "emergency_number",
        "What number do I call in an emergency?",
        answer="For life-threatening emergencies, dial 1998.",
        contexts=["For life-threatening emergencies, such as severe swelling, dial 999."],
    ),
    # 2011 is the second album's year; the band was formed in 2008.
    case(
        "band_formed",
        "When was the band formed?",
        answer="Harbour Lights is a Canadian pop band formed in Halifax, Nova Scotia in 2011.",
        contexts=[
            "Harbour Lights is a Canadian pop band formed in Halifax, Nova Scotia in 2008. Their"
            " second album came out in 2011."
        ],
    ),
    # The context denies only the cash; the answer denies the invoice too.
    case(
        "credits_denied",
        "How are SLA credits paid?",
        answer="SLA credits are not applied to the next invoice and cannot be redeemed for cash.",
        contexts=["SLA credits are applied to the next invoice and cannot be redeemed for cash."],
    ),
    # "not larger than the Economy room" denies the comparison; it is no bound.
    case(
        "room_size",
        "Is the Standard room larger?",
        answer="The Standard room is not larger than the Economy room.",
        contexts=["The Standard room is larger than the Economy room."],
    ),
    # The film is by Kevin Keating, about Rudy Giuliani: the two names change places.
    case(
        "film_maker",
        "Who made Giuliani Time?",
        answer=(
            "Giuliani Time is a 2005 documentary film by Rudy Giuliani about Kevin Keating,"
            " former Mayor of New York City."
        ),
        contexts=[
            "Giuliani Time is a 2005 documentary film by Kevin Keating about Rudy Giuliani,"
            " former Mayor of New York City."
        ],
    ),
    # The years of the first two clauses, parted by a comma alone, change places.
    case(
        "career_years",
        "When did he reach the final?",
        answer=(
            "He reached the singles final at the French Open in 1984, won the doubles title in"
            " 1988, and helped France win the Davis Cup in 1991."
        ),
        contexts=[
            "He reached the singles final at the French Open in 1988, won the doubles title in"
            " 1984, and helped France win the Davis Cup in 1991."
        ],
    ),
    # "the same day" of one thing compares nothing: the "not" denies the context.
    case(
        "same_day",
        "When are mobile cheque deposits credited?",
        answer="Mobile cheque deposits made before 4 p.m. on a business day are not credited the"
        " same day.",
        contexts=[
            "Mobile cheque deposits made before 4 p.m. on a business day are credited the same day."
        ],
    ),
    # 15 miles is no restatement of 12 kilometres; "below 199.9%" reaches past "below 99.95%".
    case(
        "trail_miles",
        "How long is the trail?",
        answer="The trail is 12 kilometres (15 miles) long.",
        contexts=["The trail is 12 kilometres (7.5 miles) long."],
    ),
    case(
        "uptime_credit",
        "When do I get a service credit?",
        answer="If monthly uptime falls below 199.9%, customers receive a 10% service credit.",
        contexts=[
            "If monthly uptime falls below 99.95%, customers receive a 10% service credit; below"
            " 99.0%, the credit increases to 25%."
        ],
    ),
    # A name's number in words against the context's digits: another block.
    case(
        "locker_block",
        "Where are the lockers?",
        answer="Lockers for day visitors are in Block Three.",
        contexts=["Lockers for day visitors are in Block 7 on the ground floor."],
    ),
    # A denial of the context's own sentence: of what it says two things share, of its
    # "only", of an amount in a clause of its own, of what it says beside its exception.
    case(
        "centres_closed",
        "Are the centres open on public holidays?",
        answer="Both centres are not closed on public holidays.",
        contexts=["Both centres are closed on public holidays. They reopen the next morning."],
    ),
    case(
        "flood_cover",
        "Is flood damage covered?",
        answer="Flood damage from rising water is not only covered with the Flood Endorsement.",
        contexts=["Flood damage from rising water is only covered with the Flood Endorsement."],
    ),
    case(
        "water_excess",
        "What is the excess for escape of water?",
        answer="For escape of water claims, such as burst pipes, the excess is not $1,000.",
        contexts=["For escape of water claims, such as burst pipes, the excess is $1,000."],
    ),
    case(
        "gym_days",
        "When is the gym open?",
        answer="The gym is not open daily except bank holidays.",
        contexts=["The gym is open daily except bank holidays."],
    ),
    # Another start of the range; the claim's 3 is another sentence's time of day.
    case(
        "wire_days",
        "How long do incoming wires take?",
        answer="Incoming wires from abroad usually take 3 to 5 business days to arrive.",
        contexts=[
            "Wires sent before 3 p.m. ET on a business day are processed the same day.",
            "Incoming wires from abroad usually take 1 to 5 business days to arrive.",
        ],
    ),
    # A denial of a long sentence, no one clause of which holds enough of the claim; one
    # whose first words after the "not" say nothing.
    case(
        "gervais",
        "Who is Ricky Gervais?",
        answer="Ricky Dene Gervais (born 25 June 1961) is not an English comedian, actor,"
        " writer, producer, director, singer, and musician.",
        contexts=[
            "Ricky Dene Gervais (born 25 June 1961) is an English comedian, actor, writer,"
            " producer, director, singer, and musician."
        ],
    ),
    case(
        "capped",
        "Who was Lena?",
        answer="Lena was not one of the most capped players in the club's history.",
        contexts=["Lena was one of the most capped players in the club's history."],
    ),
    # A span of years with another start, which another clause gives.
    case(
        "governor_years",
        "When was she governor?",
        answer="Richards served as Governor of Texas from 1994 to 1995.",
        contexts=[
            "Richards served as Governor of Texas from 1991 to 1995 and was defeated for"
            " re-election in 1994."
        ],
    ),
    # Two numbers of a copied sentence in each other's places.
    case(
        "cover_price",
        "What does contents insurance cost?",
        answer="Contents insurance starts at $20,000 per month for up to $9 of cover.",
        contexts=["Contents insurance starts at $9 per month for up to $20,000 of cover."],
    ),
    # A denial a passage that only shares the claim's words would take as supported.
    case(
        "joint_holders",
        "How many holders can a joint account have?",
        answer="Joint accounts can not have up to 2 account holders, and both must be at least 18.",
        contexts=[
            "Joint accounts can have up to 2 account holders, and both must be at least 18.",
            "Closing a joint account requires both holders to sign.",
        ],
    ),
    # A "not" put in before words that say nothing alone.
    case(
        "frozen_card",
        "What happens to subscriptions when I freeze my card?",
        answer="When a card is frozen, recurring payments such as subscriptions will not still"
        " go through.",
        contexts=[
            "A frozen card declines new purchases, but recurring payments such as"
            " subscriptions will still go through."
        ],
    ),
    # A "not" put in a clause the claim splitter reads as a claim of its own.
    case(
        "vote_split",
        "How did the board vote?",
        answer="A third of the board voted for the merger, and the rest were not against it.",
        contexts=["A third of the board voted for the merger, and the rest were against it."],
    ),
    # A day of the year the context gives with another year, beside the claim's year.
    case(
        "birth_year",
        "When was Emma born?",
        answer="Emma Rose Kenney (born September 14, 2002) is an American actress known for"
        " her roles in Epic (2013) and Bittersweet (2008).",
        contexts=[
            "Emma Rose Kenney (born September 14, 1999) is an American actress known for her"
            " roles in Epic (2013) and Bittersweet (2008). She voiced a girl in Ice Age (2002)."
        ],
    ),
    # An opposite in one clause of a long claim.
    case(
        "bag_delay_cap",
        "How much does baggage delay cover pay?",
        answer="Baggage delay cover reimburses essential purchases up to $200 per day, to a"
        " minimum of $600, if your checked bag is delayed by 12 hours or more.",
        contexts=[
            "Baggage delay cover reimburses essential purchases up to $200 per day, to a"
            " maximum of $600, if your checked bag is delayed by 12 hours or more."
        ],
    ),
    # A month named alone that the context names otherwise.
    case(
        "garden_months",
        "When is garden waste collected?",
        answer="Garden waste is collected every four weeks from May to November.",
        contexts=["Garden waste is collected every four weeks from March to November."],
    ),
    # A range of days with another start.
    case(
        "phone_days",
        "When are the phone lines open?",
        answer="Our phone lines are open from 8:00 to 18:30 Tuesday to Friday.",
        contexts=["Our phone lines are open from 8:00 to 18:30 Monday to Friday."],
    ),
    # A number the context writes, put where it writes another.
    case(
        "outage_priority",
        "How fast is a site outage answered?",
        answer="Priority 3 (site down) is answered within 10 minutes, day and night.",
        contexts=[
            "Priority 1 (site down) is answered within 10 minutes, day and night; Priority 2"
            " within 2 hours; Priority 3 within 2 business days."
        ],
    ),
    # A word put where the context has its opposite, the context having both.
    case(
        "courier_fee",
        "What does a courier delivery cost?",
        answer="Courier delivery has a maximum fee of $9 and a maximum of $30 per parcel.",
        contexts=["Courier delivery has a minimum fee of $9 and a maximum of $30 per parcel."],
    ),
    # Several days of another month.
    case(
        "open_days",
        "When are the open days?",
        answer="Our open days are on May 9 and 10, and places must be booked by April 20.",
        contexts=["Our open days are on April 9 and 10, and places must be booked by April 20."],
    ),
    # A day of a month the contexts give only the year of, the passage another month.
    case(
        "camp_dates",
        "When does the summer camp run?",
        answer="The summer camp runs from June 30 to August 8, 2025, at the lake site.",
        contexts=[
            "Our 2025 summer camp is open to ages 8 to 14. The summer camp runs from July 30"
            " to August 8, 2025, at the lake site."
        ],
    ),
    # An opposite of the closest sentence, whose first clause is another sentence's.
    case(
        "dispatch_cutoff",
        "When are Sunday orders dispatched?",
        answer="Orders placed before 2 pm, on Sundays or on bank holidays are dispatched the"
        " next day.",
        contexts=[
            "Orders placed before 2 pm on a weekday are dispatched the same day. Orders placed"
            " after 2 pm, on Sundays or on bank holidays are dispatched the next day."
        ],
    ),
    # A year changed in an aside whose names part it with semicolons.
    case(
        "founder_born",
        "When was the founder born?",
        answer="Our founder Ana Maria Ruiz ( ; Spanish: Ana María Ruiz ; Catalan: Anna Maria"
        " Ruiz ; born May 3, 1971) opened the first shop in 1998.",
        contexts=[
            "Our founder Ana Maria Ruiz ( ; Spanish: Ana María Ruiz ; Catalan: Anna Maria Ruiz"
            " ; born May 3, 1970) opened the first shop in 1998."
        ],
    ),
    # An act given to the name the context credits with another work ("wrote" the act of
    # "written").
    case(
        "manual_author",
        "Who wrote the installation manual?",
        answer="Priya Nair wrote the installation manual.",
        contexts=[
            "The installation manual was written by Jonas Weber, and the quick-start video is"
            " by Priya Nair."
        ],
    ),
    # A year given to both of two stores, the second's another.
    case(
        "store_openings",
        "When did the stores open?",
        answer="Both the Leeds store and the York store opened in 2018.",
        contexts=["The Leeds store opened in 2018. The York store opened in 2020."],
    ),
    # A country the context names only as its language, placing the thing in another.
    case(
        "warehouse_country",
        "Where is your warehouse?",
        answer="Our warehouse is in France.",
        contexts=["Our warehouse is in Ghent, Belgium, and our drivers speak French and Dutch."],
    ),
    # A year in brackets after a name, another name's in a list of names with years.
    case(
        "course_years",
        "Which courses do you run?",
        answer='We run "Intro to Pottery" (2021), "Wheel Throwing" (2021) and "Glazing" (2023).',
        contexts=[
            'We run "Intro to Pottery" (2019), "Wheel Throwing" (2021) and "Glazing" (2023).'
        ],
    ),
    # Another amount in the same unit in the claim's own aside.
    case(
        "route_aside",
        "How long is the coastal route?",
        answer="The coastal route is 18 km (11 km) long.",
        contexts=["The coastal route is 18 km (11 miles) long and mostly flat."],
    ),
    # A day of another month, the month named alone by another sentence (the answer glued to
    # the next sentence, as a copied text may be).
    case(
        "workshop_date",
        "When is the workshop?",
        answer="The workshop is held on 21 May 2026.Booking details were published in March.",
        contexts=[
            "Sign-ups close in May. The workshop is held on 21 June 2026.Booking details were"
            " published in March."
        ],
    ),
    # A name with a day in it, the day changed.
    case(
        "sale_name",
        "Which sale do members get early access to?",
        answer="Members get early access to our Cyber Friday sale and free returns.",
        contexts=["Members get early access to our Cyber Monday sale and free returns."],
    ),
    # Another thing than the context's that a thing is best known for.
    case(
        "bakery_known_for",
        "What is the bakery known for?",
        answer="Our Lisbon bakery is best known for its sourdough bread.",
        contexts=[
            "Our Lisbon bakery is best known for its custard tarts; it also sells sourdough"
            " bread and coffee."
        ],
    ),
]
TESTS = """
from rag_eval_pytest import assert_faithful

def test_grounded(rag_case):
    assert_faithful(rag_case, 0.9)
"""


def test_good_answers_in_other_words_never_fail_and_swapped_facts_never_pass(
    pytester: pytest.Pytester, write_dataset: Callable[..., Path]
) -> None:
    write_dataset(GOOD + SWAPPED)
    pytester.makepyfile(test_bot=TESTS)
    result = pytester.runpytest(
        "--rag-dataset=dataset.json", "--rag-judge=local", "-p", "no:randomly"
    )
    assert result.ret == 1, result.stdout.str()
    status = {
        c["id"]: c["metrics"]["faithfulness"]["status"] for c in read_report(pytester)["cases"]
    }
    for good in GOOD:
        assert status[good["id"]] in ("passed", "not_judged"), good["id"]
    # "UK" is the context's "United Kingdom", and the hotel's 20 minutes the beach's.
    assert (status["uk"], status["beach"]) == ("passed", "passed")
    for swapped in SWAPPED:
        assert status[swapped["id"]] in ("failed", "not_judged"), swapped["id"]
    # The checks find each swapped fact; a fact the context gives another plan or place fails
    # (its kind is right on every held-out row that rests on it). A conflict of days has been
    # decided on too few of the benchmark's held-out rows to decide alone: the judge says so
    # and leaves it to an LLM. So are a fact the context gives only above a bound, one another
    # sentence denies and two plans in each other's places: never passed, left to an LLM; so
    # is a claim that joins what two sentences say, one that states an option as a fact, one
    # that excludes what its context does not, and one that names a thing by a name its
    # context never writes; and, days again, two words in each other's places, and a thing
    # said closed on a day its context gives hours for; a denial put aside its clause ("not
    # HR"); a colour added to a list; another plan's most; and an act given to the doer of
    # another; "all" guests where the context restricts them; an item another clause prices;
    # a day said closed that the context says open. An ordinal in words against the context's
    # digits, another alternative's amount and another clause's bare number are conflicts of
    # numbers, decided; an amount the context bounds on the other side is left to an LLM. A
    # date of another clause (without its year), and an amount of the clause another number
    # of the claim names, are conflicts, decided; a thing said of "other pets", "standard
    # shipping" or "new customers" said of every one is left to an LLM, and so is a claim
    # that leaves out whom a thing is free for, or the condition that opens its sentence.
    # An amount moved to the place of another in its clause, one a claim says twice and
    # another four-digit amount are conflicts, decided; a denied amount and a version no
    # context gives are left to an LLM; so is a clause that denies the context's; dates and
    # prices swapped between the clauses are conflicts, decided; so are the end of another
    # span of days and another thing's age; a year no context gives is left to an LLM; a
    # year the closest sentence gives otherwise is a conflict, decided; a denial beside the
    # context's own is left to an LLM, and so are a denied comparison and two names with
    # each other's word before them; years swapped between clauses a comma parts are a
    # conflict, decided; a denial of "the same day" is left to an LLM; an aside of another
    # amount and a bound past the context's are conflicts, decided; so is a name's number in
    # words against the context's digits; a denial of the context's own sentence is left
    # to an LLM; a range with another start is a conflict of numbers, decided; a denial of a
    # long sentence is left to an LLM; a span of years with another start is a conflict of
    # dates, decided; two numbers of a copied sentence exchanged are a conflict of numbers,
    # decided; a denial beside a passage that only shares its words, and a "not" put in
    # before words that say nothing alone (in a clause of its own too), are left to an LLM;
    # a day of the year the context gives with another year is a conflict of dates, decided;
    # an opposite in one clause of a long claim is left to an LLM; a month named alone that
    # the context names otherwise is a conflict of dates, decided; a range of days with
    # another start is a conflict of days, left to an LLM; a number put where the context
    # writes another is a conflict of numbers, decided; a word put where the context has its
    # opposite is left to an LLM; several days of another month, and a day of a month the
    # context gives only the year of, are conflicts of dates, decided; a time of day put
    # after the opposite word, its clause another sentence's, is a conflict of times,
    # decided; so is a date in an aside that semicolons part, of dates. An act given to the
    # name credited with another work is left to an LLM; a year given to both of two things
    # is a claim about each, the second's a conflict of dates, decided; a country named only
    # as a language, where the context places the thing in another, is left to an LLM. A
    # name given another name's year in brackets, and another amount in the same unit in the
    # claim's own aside, are conflicts (of dates, of numbers), decided; so is a day of a
    # month another sentence names alone, where the passage gives its day and year, of dates.
    # A name with another day in it is a name the context does not write in the place of its
    # own: a conflict of terms, decided. Another thing a thing is best known for is left to
    # an LLM, leaning not mentioned.
    assert [status[c["id"]] for c in SWAPPED] == [
        *("failed", "not_judged", "failed", "failed"),
        *("failed", "failed", "failed", "not_judged", "not_judged", "failed"),
        *("failed", "not_judged", "failed", "failed", "not_judged", "not_judged"),
        *("failed", "not_judged", "not_judged", "not_judged", "failed", "not_judged"),
        *("not_judged", "not_judged", "not_judged", "failed", "not_judged", "not_judged"),
        *("not_judged", "not_judged", "not_judged", "not_judged", "not_judged"),
        *("failed", "not_judged", "not_judged", "failed", "not_judged", "not_judged"),
        *("not_judged", "not_judged", "not_judged", "not_judged", "not_judged", "not_judged"),
        *("not_judged", "not_judged", "failed", "failed", "failed", "not_judged"),
        *("failed", "failed", "failed", "not_judged", "not_judged", "not_judged"),
        *("not_judged", "not_judged", "failed", "failed", "not_judged", "failed"),
        *("not_judged", "not_judged", "failed", "failed", "failed", "failed"),
        *("not_judged", "failed", "not_judged", "not_judged", "not_judged", "failed"),
        *("not_judged", "failed", "failed", "failed"),
        *("not_judged", "not_judged", "not_judged", "not_judged", "failed", "not_judged"),
        *("not_judged", "failed", "failed", "not_judged", "not_judged", "not_judged"),
        *("failed", "not_judged", "failed", "not_judged", "failed", "not_judged"),
        *("failed", "failed", "failed", "failed"),
        *("not_judged", "failed", "not_judged", "failed", "failed", "failed"),
        *("failed", "not_judged"),
    ]
    pickups = next(c for c in read_report(pytester)["cases"] if c["id"] == "pickups")
    [claim] = pickups["metrics"]["faithfulness"]["evidence"]
    assert claim["reason"].startswith("unsure (contradicted: days:")
    assert "claims Fridays for deliveries; the context says Mondays" in claim["reason"]
    reasons = {
        c["id"]: [e["reason"] for e in c["metrics"]["faithfulness"]["evidence"]]
        for c in read_report(pytester)["cases"]
    }
    assert "gives \u201cwrote\u201d to \u201cPriya Nair\u201d" in reasons["manual_author"][0]
    assert reasons["store_openings"][1].startswith("claims 2018; the context says 2020")
    assert (
        "name France only in \u201cFrench\u201d, and name Belgium"
        in (reasons["warehouse_country"][0])
    )
    assert (
        "the context says best known for \u201cits custard tarts\u201d"
        in (reasons["bakery_known_for"][0])
    )
