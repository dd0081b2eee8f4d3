"""Dates in what people say: a planned day for expiries (``resolve_date``) and when a stated
event happened (``resolve_occurred``), both seen from the conversation's local date."""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = ["resolve_date"]

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = {
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
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
_IN_N = re.compile(
    r"\bin\s+(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"a\s+couple\s+of|a\s+few)\s+(day|week|month|year)s?\b"
)
_WEEKDAY = re.compile(r"\b(last|next|this|coming)?\s*(" + "|".join(_WEEKDAYS) + r")\b")


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
    month_day = _MONTH_DAY.search(t)
    day_month = _DAY_MONTH.search(t)
    if month_day or day_month:
        month, day = (
            (_MONTHS[month_day[1]], int(month_day[2]))
            if month_day
            else (_MONTHS[day_month[2]], int(day_month[1]))  # type: ignore[index]
        )
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

