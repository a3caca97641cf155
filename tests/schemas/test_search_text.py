"""DESIGN "Signals": `q` matches words in person, account, page and properties. An event's
search text holds those words, lower-cased, as runs of letters, digits and `_` (what
`split_words` makes of a query), so a query word matches a whole word only."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from schemas.signals.events import (
    SEARCH_TEXT_LIMIT,
    Account,
    NewEvent,
    Page,
    Person,
    event_words,
    search_text,
    split_words,
)

WHEN = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def event(
    *,
    name: str | None = None,
    title: str | None = None,
    properties: dict[str, str | int | float | bool | None] | None = None,
) -> NewEvent:
    return NewEvent(
        id="crm:1",
        type="article_read",
        source="crm",
        occurred_at=WHEN,
        person=Person(email="ada.lovelace@acme.com", name=name),
        account=Account(domain="acme.com", name="Acme, Inc."),
        page=Page(
            url="https://example.com/blog/growth-loops?x=1", path="/blog/growth-loops", title=title
        ),
        properties=properties or {},
    )


def test_the_text_holds_each_searchable_word_between_spaces() -> None:
    text = search_text(event(name="Ada Lovelace", properties={"campaign": "Q4_Launch", "n": 3}))

    for word in ("ada", "lovelace", "acme", "com", "inc", "growth", "loops", "q4_launch", "3"):
        assert f" {word} " in text
    assert " crm " not in text  # the source and the id are not searchable
    assert text.startswith(" ") and text.endswith(" ")  # noqa: PT018  # the padding is the point


def test_letters_beyond_ascii_are_words_too() -> None:
    text = search_text(event(name="José Müller-Lüdenscheidt", title="Über «Wachstum»"))

    assert split_words("josé müller lüdenscheidt über wachstum") == [
        w for w in text.split() if w in {"josé", "müller", "lüdenscheidt", "über", "wachstum"}
    ]


@given(
    name=st.text(max_size=60),
    title=st.text(alphabet=st.characters(codec="ascii"), max_size=60),
    value=st.one_of(st.text(max_size=40), st.integers(), st.booleans(), st.none()),
)
def test_the_words_are_what_split_words_makes_of_the_same_parts(
    name: str, title: str, value: str | int | bool | None
) -> None:
    """The fast path for ASCII gives the same words as the regular expression."""
    built = event(name=name or None, title=title or None, properties={"v": value})
    parts = [
        "ada.lovelace@acme.com",
        name,
        "acme.com",
        "Acme, Inc.",
        "https://example.com/blog/growth-loops?x=1",
        "/blog/growth-loops",
        title,
        "" if value is None else str(value),
    ]

    assert search_text(built).split() == split_words(" ".join(parts))
    assert event_words(built) == list(dict.fromkeys(split_words(" ".join(parts))))


def test_a_long_text_is_cut_between_words() -> None:
    long_title = " ".join(f"word{i}" for i in range(2000))

    text = search_text(event(title=long_title))

    assert len(text) <= SEARCH_TEXT_LIMIT + 2
    last = text.split()[-1]
    assert re.fullmatch(r"word\d+", last) and last in long_title.split()  # noqa: PT018
