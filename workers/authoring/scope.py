"""How long a brief says its work takes, and which company material says otherwise.

A brief whose topic or offer times its own work ("we rebuild your pipeline report in one
week", "a two-day workshop", "a six-week pilot") for less than the company program's minimum
term sells that piece of work, not the program. The program's steps after the intro call, its
term and its cancellation belong to the program, and any other company sentence describing work
longer than the brief's timeline, or a rhythm it would repeat fewer than three times in it
("weekly sprints" in ten days), would contradict the brief. A time shorter than a day ("alerts
within one hour") is a response time, not a timeline. Pure text functions.
"""

from __future__ import annotations

import re

_NUMBER_WORDS = {
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
    "eleven": 11,
    "twelve": 12,
}
_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 30, "quarter": 90, "year": 365}
_DURATION = re.compile(
    r"(?<![\w-])(?P<count>\d+|" + "|".join(_NUMBER_WORDS) + r")[\s-]"
    r"(?:business[\s-])?(?P<unit>hour|day|week|month|quarter|year)s?\b",
    re.IGNORECASE,
)
_CADENCE = re.compile(
    r"\b(?:(?P<adverb>weekly|monthly|quarterly)|(?:each|every) (?P<unit>week|month|quarter|"
    r"friday|monday|tuesday|wednesday|thursday))\b",
    re.IGNORECASE,
)
_CADENCE_DAYS = {"weekly": 7, "monthly": 30, "quarterly": 90, "week": 7, "month": 30, "quarter": 90}


def durations(text: str) -> list[float]:
    """Every stretch of time `text` states, in days ("two-week audit" -> 14)."""
    found = []
    for match in _DURATION.finditer(text):
        count = match.group("count").lower()
        number = int(count) if count.isdigit() else _NUMBER_WORDS[count]
        found.append(number * _DAYS[match.group("unit").lower()])
    return found


def stated_timeline(*texts: str | None) -> float | None:
    """The longest stretch of a day or more the brief's texts give for the work, in days."""
    stated = [d for text in texts if text for d in durations(text) if d >= 1]
    return max(stated) if stated else None


def stated_span(*texts: str | None) -> str | None:
    """The longest stretch of a day or more the texts give, as words ("four weeks")."""
    found = [
        (number * _DAYS[unit], count, unit)
        for text in texts
        if text
        for m in _DURATION.finditer(text)
        for count, unit in [(m.group("count").lower(), m.group("unit").lower())]
        for number in [int(count) if count.isdigit() else _NUMBER_WORDS[count]]
        if number * _DAYS[unit] >= 1
    ]
    if not found:
        return None
    _days, count, unit = max(found)
    return f"{count} {unit}" + ("" if count in ("1", "one") else "s")


def own_timeline(topic: str, offer: str | None, *, minimum_term: str) -> float | None:
    """The brief's timeline when it sells a piece of work shorter than the program's minimum
    term ("3 months"); None when it states none, or one the program spans (a 90-day plan)."""
    timeline = stated_timeline(topic, offer)
    term = max(durations(minimum_term), default=None)
    if timeline is None or (term is not None and timeline >= term):
        return None
    return timeline


def contradicts(text: str, timeline: float | None) -> bool:
    """Whether company material describes work longer than the brief's timeline, or a rhythm
    the brief's work would repeat fewer than three times (weekly sprints for a ten-day job)."""
    if timeline is None:
        return False
    if any(d > timeline for d in durations(text)):
        return True
    for match in _CADENCE.finditer(text):
        word = (match.group("adverb") or match.group("unit")).lower()
        if 3 * _CADENCE_DAYS.get(word, 7) > timeline:
            return True
    return False
