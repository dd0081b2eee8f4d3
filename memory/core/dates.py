"""Dates in what people say (pure): a planned day for expiries (``resolve_date``), when a stated
event happened (``resolve_occurred``), both seen from the conversation's local date."""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = ["MONTHS", "resolve_date", "resolve_occurred"]

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
# Month names and abbreviations → 1–12 (bench.locomo reads LoCoMo's session dates with it).
MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
_IN_N = re.compile(
    r"\bin\s+(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"a\s+couple\s+of|a\s+few)\s+(day|week|month|year)s?\b"
)
_WEEKDAY = re.compile(r"\b(last|next|this|coming)?\s*(" + "|".join(_WEEKDAYS) + r")\b")


def _named_day(t: str) -> tuple[int, int] | None:
    """(month, day) of a day named by its month ("march 3rd", first; "the 3rd of march")."""
    if month_day := _MONTH_DAY.search(t):
        return MONTHS[month_day[1]], int(month_day[2])
    if day_month := _DAY_MONTH.search(t):
        return MONTHS[day_month[2]], int(day_month[1])
    return None


def _month_end(year: int, month: int) -> date:
    first_next = date(year + month // 12, month % 12 + 1, 1)
    return first_next - timedelta(days=1)


def _add_months(day: date, months: int) -> date:
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    return date(year, month, min(day.day, _month_end(year, month).day))


def resolve_date(text: str, today: date) -> date | None:
    """The future day a relative or explicit date in ``text`` points to, seen from
    ``today`` (the conversation's local date); None if there is none.

    Periods resolve to their last day ("next week" → that week's Sunday, "next month" →
    its last day). "Friday"/"on Friday"/"this Friday" is the coming one (never today);
    "next Friday" is the Friday of next calendar week (Monday-based). A month and day
    already past this year means next year. "last …" is the past and ignored.
    """
    t = text.lower()
    if "day after tomorrow" in t:
        return today + timedelta(days=2)
    if re.search(r"\btomorrow\b", t):
        return today + timedelta(days=1)
    if re.search(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", t):
        return today
    if m := _ISO_DATE.search(t):
        try:
            return date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
    if named := _named_day(t):
        month, day = named
        try:
            found = date(today.year, month, day)
        except ValueError:
            return None
        return found if found >= today else found.replace(year=today.year + 1)
    if m := _IN_N.search(t):
        amount = m[1].replace("a couple of", "couple of").replace("a few", "few")
        n = int(amount) if amount.isdigit() else _COUNTS[amount]
        unit = m[2]
        if unit == "day":
            return today + timedelta(days=n)
        if unit == "week":
            return today + timedelta(weeks=n)
        return _add_months(today, n * (12 if unit == "year" else 1))
    for m in _WEEKDAY.finditer(t):
        if m[1] == "last":
            continue
        target = _WEEKDAYS.index(m[2])
        if m[1] == "next":
            next_monday = today + timedelta(days=7 - today.weekday())
            return next_monday + timedelta(days=target)
        return today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    sunday = today + timedelta(days=6 - today.weekday())
    if re.search(r"\bnext\s+week(?:end)?\b", t):
        return sunday + timedelta(days=7)
    if re.search(r"\bthis\s+week(?:end)?\b|\bend\s+of\s+(?:the|this)\s+week\b", t):
        return sunday
    if re.search(r"\bnext\s+month\b", t):
        nxt = _add_months(today.replace(day=1), 1)
        return _month_end(nxt.year, nxt.month)
    if re.search(r"\bthis\s+month\b|\bend\s+of\s+(?:the|this)\s+month\b", t):
        return _month_end(today.year, today.month)
    if re.search(r"\bnext\s+year\b", t):
        return date(today.year + 1, 12, 31)
    if re.search(r"\bthis\s+year\b|\bend\s+of\s+(?:the|this)\s+year\b", t):
        return date(today.year, 12, 31)
    return None


# --- when a stated event happened -------------------------------------------------------------

_SEASONS = {
    "spring": (3, 5),
    "summer": (6, 8),
    "autumn": (9, 11),
    "fall": (9, 11),
    "winter": (12, 2),
}
_NUMBER = (
    r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of|"
    r"a\s+few|few|couple\s+of)"
)
_AGO = re.compile(_NUMBER + r"\s+(day|week|month|year)s?\s+ago\b")
_LAST_PERIOD = re.compile(r"\b(last|past|previous|next|this|coming)\s+(week(?:end)?|month|year)\b")
_LAST_WEEKDAY = re.compile(
    r"\b(last|next|this|on|coming)\s+("
    + "|".join(_WEEKDAYS)
    + r"|mon|tues?|wed|thurs?|fri|sat|sun)\b"
)
_SEASON = re.compile(r"\b(last|this|next)\s+(spring|summer|autumn|fall|winter)\b")
_IN_MONTH = re.compile(rf"\b(?:in|since|during|last|this|next|early|late|mid-?)\s+({_MONTH_RE})\b")
_IN_YEAR = re.compile(r"\b(?:in|since|back in)\s+((?:19|20)\d{2})\b")
_SHORT_DAYS = {
    "mon": 0,
    "tue": 1,
    "tues": 1,
    "wed": 2,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "fri": 4,
    "sat": 5,
    "sun": 6,
}


def _count(text: str) -> int:
    text = re.sub(r"\s+", " ", text).replace("a couple of", "couple of").replace("a few", "few")
    return int(text) if text.isdigit() else _COUNTS.get(text, 1)


def _day(day: date) -> str:
    return day.isoformat()


def _span(first: date, last: date) -> str:
    return f"{first.isoformat()}/{last.isoformat()}"


def _month(year: int, month: int) -> str:
    return f"{year:04d}-{month:02d}"


def resolve_occurred(text: str, today: date, *, future: bool = False) -> str:
    """When what ``text`` states happened, seen from ``today`` (the conversation's local date):
    an ISO day (``2023-05-07``), a month (``2023-05``), a year (``2021``) or a day range
    (``2023-05-01/2023-05-07``); ``""`` when the sentence names no time.

    ``future``: the sentence is about a plan ("next Friday", "in May" then point forward);
    otherwise bare weekdays and months point back ("on Friday" = the last Friday before
    today, "in May" = the latest May not after this month). Weeks run Monday to Sunday.
    Explicit dates ("8 May", "2023-05-08") keep their year when one is given.
    """
    t = text.lower()
    if re.search(r"\bday\s+before\s+yesterday\b", t):
        return _day(today - timedelta(days=2))
    if re.search(r"\byesterday\b|\blast\s+night\b", t):
        return _day(today - timedelta(days=1))
    if re.search(r"\bday\s+after\s+tomorrow\b", t):
        return _day(today + timedelta(days=2))
    if re.search(r"\btomorrow\b", t):
        return _day(today + timedelta(days=1))
    if re.search(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", t):
        return _day(today)
    if m := _ISO_DATE.search(t):
        try:
            return _day(date(int(m[1]), int(m[2]), int(m[3])))
        except ValueError:
            return ""
    if named := _named_day(t):
        month, number = named
        year_m = re.search(rf"{number}(?:st|nd|rd|th)?,?\s+(?:of\s+)?\w*,?\s*((?:19|20)\d{{2}})", t)
        try:
            found = date(int(year_m[1]) if year_m else today.year, month, number)
        except ValueError:
            return ""
        if not year_m:
            if future and found < today:
                found = found.replace(year=today.year + 1)
            elif not future and found > today:
                found = found.replace(year=today.year - 1)
        return _day(found)
    if m := _AGO.search(t):
        n, unit = _count(m[1]), m[2]
        if unit == "day":
            return _day(today - timedelta(days=n))
        if unit == "week":
            start = today - timedelta(weeks=n)
            monday = start - timedelta(days=start.weekday())
            return _span(monday, monday + timedelta(days=6))
        if unit == "month":
            back = _add_months(today.replace(day=1), -n)
            return _month(back.year, back.month)
        return f"{today.year - n:04d}"
    if m := _IN_N.search(t):
        n, unit = _count(m[1]), m[2]
        if unit == "day":
            return _day(today + timedelta(days=n))
        if unit == "week":
            return _day(today + timedelta(weeks=n))
        ahead = _add_months(today.replace(day=1), n * (12 if unit == "year" else 1))
        return _month(ahead.year, ahead.month) if unit == "month" else f"{ahead.year:04d}"
    if m := _LAST_WEEKDAY.search(t):
        word, name = m[1], m[2]
        target = _WEEKDAYS.index(name) if name in _WEEKDAYS else _SHORT_DAYS[name]
        this_monday = today - timedelta(days=today.weekday())
        if word == "last" or (word == "on" and not future):
            back = (today.weekday() - target) % 7 or 7
            return _day(today - timedelta(days=back))
        if word == "next":
            return _day(this_monday + timedelta(days=7 + target))
        ahead = (target - today.weekday()) % 7 or 7
        return _day(today + timedelta(days=ahead))
    if m := _LAST_PERIOD.search(t):
        word, unit = m[1], m[2]
        step = (
            -1 if word in {"last", "past", "previous"} else (1 if word in {"next", "coming"} else 0)
        )
        if unit.startswith("week"):
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
            if unit == "weekend":
                return _span(monday + timedelta(days=5), monday + timedelta(days=6))
            return _span(monday, monday + timedelta(days=6))
        if unit == "month":
            when = _add_months(today.replace(day=1), step)
            return _month(when.year, when.month)
        return f"{today.year + step:04d}"
    if m := _SEASON.search(t):
        word, season = m[1], m[2]
        first_month, last_month = _SEASONS[season]
        year = today.year + {"last": -1, "this": 0, "next": 1}[word]
        if word == "last" and today.month > last_month and season != "winter":
            year = today.year  # "last summer", said in October, is this year's
        start = date(year, first_month, 1)
        end_year = year + 1 if season == "winter" else year
        return _span(start, _month_end(end_year, last_month))
    if m := _IN_MONTH.search(t):
        month = MONTHS[m[1]]
        year = today.year
        if future and month < today.month:
            year += 1
        elif not future and month > today.month:
            year -= 1
        return _month(year, month)
    if m := _IN_YEAR.search(t):
        return m[1]
    if re.search(r"\blast\s+year\b", t):
        return f"{today.year - 1:04d}"
    return ""


def occurred_range(occurred: str) -> tuple[date, date] | None:
    """The first and last day an ``occurred`` value covers (``"2023-05"`` → 1–31 May 2023);
    None for ``""`` or anything unreadable."""
    try:
        if "/" in occurred:
            first, last = occurred.split("/", 1)
            return date.fromisoformat(first), date.fromisoformat(last)
        if len(occurred) == 10:
            day = date.fromisoformat(occurred)
            return day, day
        if len(occurred) == 7:
            year, month = int(occurred[:4]), int(occurred[5:7])
            return date(year, month, 1), _month_end(year, month)
        if len(occurred) == 4:
            return date(int(occurred), 1, 1), date(int(occurred), 12, 31)
    except ValueError:
        return None
    return None
