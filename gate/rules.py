"""The quality gate's rules: one pure function per rule, each from a raw page to its issues.

Every rule reads the raw JSON defensively (any shape may arrive) and leaves structure and
limits to the schema, so a rule never raises and never repeats a schema issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from gate.assertions import assertions
from gate.claims import SCALES, brief_facts, numbers
from gate.context import customer_quotes, is_negated, quote_key, quoted_spans
from gate.text import contains_phrase, fold, text_fields, tokens
from gate.urls import MAX_URL_LENGTH, image_problem, link_problem
from schemas.catalog import Brand
from schemas.errors import Issue

_STOPWORDS = frozenset(
    {"a", "an", "and", "at", "for", "in", "of", "on", "or", "the", "to", "who", "with"}
)


def _blocks(payload: object) -> list[tuple[int, Mapping[str, object]]]:
    blocks = payload.get("blocks") if isinstance(payload, Mapping) else None
    if not isinstance(blocks, list):
        return []
    return [(i, block) for i, block in enumerate(blocks) if isinstance(block, Mapping)]


def _heroes(payload: object) -> list[tuple[int, Mapping[str, object]]]:
    return [(i, block) for i, block in _blocks(payload) if block.get("type") == "hero"]


def hero_first(payload: object) -> list[Issue]:
    """The first block is a hero (`hero_not_first`)."""
    blocks = payload.get("blocks") if isinstance(payload, Mapping) else None
    if not isinstance(blocks, list) or not blocks:
        return []
    first = blocks[0]
    if isinstance(first, Mapping) and first.get("type") == "hero":
        return []
    return [
        Issue(
            field="blocks.0",
            code="hero_not_first",
            message="the first block must be the page's hero",
        )
    ]


def hero_unique(payload: object) -> list[Issue]:
    """The page has only one hero (`hero_not_unique`)."""
    return [
        Issue(
            field=f"blocks.{i}",
            code="hero_not_unique",
            message="a page has exactly one hero, the first block",
        )
        for i, _block in _heroes(payload)[1:]
    ]


def icp_named(payload: object, *, brand: Brand, brief: object | None = None) -> list[Issue]:
    """The hero sub names who the page is for: the brief's ICP, else an ICP vocabulary term.

    A clause that opens with a negation ("Not for B2B SaaS companies") names who the page is
    not for: the ICP must stand in a clause of its own that is not negated.
    """
    heroes = _heroes(payload)
    if not heroes:
        return []
    index, hero = heroes[0]
    sub = hero.get("sub")
    if not isinstance(sub, str) or not sub.strip():
        return []
    words, everywhere = tokens(affirmed(sub)), tokens(sub)
    icp = _brief_icp(brief)
    if icp is not None:
        if _names_brief_icp(words, icp):
            return []
        named_negated = _names_brief_icp(everywhere, icp)
        message = f"the hero sub must say who the page is for: the brief's ICP ({icp!r})"
    else:
        if any(contains_phrase(words, tokens(term)) for term in brand.icp_vocabulary):
            return []
        named_negated = any(
            contains_phrase(everywhere, tokens(term)) for term in brand.icp_vocabulary
        )
        examples = ", ".join(brand.icp_vocabulary[:4])
        message = f"the hero sub must name who the page is for, e.g. {examples}"
    if named_negated:
        message = (
            "the hero sub names the ICP only in a negated clause (who the page is not for); "
            + message
        )
    return [Issue(field=f"blocks.{index}.sub", code="icp_missing", message=message)]


_CLAUSES = re.compile(r"[.;:!?\u2013\u2014(]|,\s|\bbut\b|\bwhile\b")
_NEGATED_OPENING = frozenset({"not", "never", "no", "nor", "neither", "except"})


def affirmed(text: str) -> str:
    """`text` without its clauses that open with a negation ("not for agencies")."""
    kept = []
    for clause in _CLAUSES.split(fold(text)):
        opening = re.findall(r"[a-z']+", clause)[:2]
        if not _NEGATED_OPENING & set(opening):
            kept.append(clause)
    return " | ".join(kept)


def _brief_icp(brief: object | None) -> str | None:
    if brief is None:
        return None
    dump = getattr(brief, "model_dump", None)
    data = dump() if callable(dump) else brief
    icp = data.get("icp") if isinstance(data, Mapping) else None
    return icp if isinstance(icp, str) and icp.strip() else None


def _names_brief_icp(words: list[str], icp: str) -> bool:
    """The whole ICP phrase, or at least half of its content words."""
    wanted = tokens(icp)
    if contains_phrase(words, wanted):
        return True
    content = {w for w in wanted if w not in _STOPWORDS and len(w) > 1}
    if not content:
        return False
    found = content & set(words)
    return len(found) * 2 >= len(content)


_LINKS = (("cta_href", "link"), ("og_image_url", "image"))
_BLOCK_LINKS = {"hero": (("ctaHref", "link"), ("imageUrl", "image")), "cta": (("ctaHref", "link"),)}


def safe_urls(payload: object) -> list[Issue]:
    """Links are a site path or an https URL; images https only (`unsafe_url`)."""
    found: list[tuple[str, str, str]] = []
    if isinstance(payload, Mapping):
        found += [
            (name, kind, payload[name])
            for name, kind in _LINKS
            if isinstance(payload.get(name), str)
        ]
    for index, block in _blocks(payload):
        for name, kind in _BLOCK_LINKS.get(str(block.get("type")), ()):
            value = block.get(name)
            if isinstance(value, str):
                found.append((f"blocks.{index}.{name}", kind, value))
    issues = []
    for field, kind, url in found:
        if len(url) > MAX_URL_LENGTH:  # a length, like every other field's: too_long
            issues.append(
                Issue(field=field, code="too_long", message=f"at most {MAX_URL_LENGTH} characters")
            )
            continue
        problem = link_problem(url) if kind == "link" else image_problem(url)
        if problem is not None:
            issues.append(Issue(field=field, code="unsafe_url", message=problem))
    return issues


def on_brand(
    payload: object,
    *,
    brand: Brand,
    brief: object | None = None,
    kept_quotes: Iterable[str] = (),
) -> list[Issue]:
    """No banned wording in any text field (`off_brand`), whole-word and case-insensitive.

    A phrase the brand rules allow in context passes there: negated ("no guaranteed meetings")
    or inside a customer quote the brief's proof gives (or `kept_quotes`: the quotes a generated
    page already carries, which its brief's proof gave). With no allowance, strict.
    """
    pattern = _banned_pattern(tuple(b.phrase for b in brand.banned_wording))
    advice = {fold(b.phrase): b for b in brand.banned_wording}
    proof_quotes = {quote_key(fact) for fact in brief_facts(brief)} if brief is not None else set()
    proof_quotes |= {key for quote in kept_quotes if (key := quote_key(quote))}
    issues = []
    for field, text in text_fields(payload):
        folded = fold(text)
        found: list[str] = []
        for match in pattern.finditer(folded):
            rule = advice.get(_canonical(match.group(0), advice))
            allow = set(rule.allow) if rule else set()
            if "negated" in allow and is_negated(folded, match.start()):
                continue
            if "proof_quote" in allow and _in_proof_quote(field, folded, match, proof_quotes):
                continue
            if match.group(0) not in found:
                found.append(match.group(0))
        for phrase in found:
            rule = advice.get(_canonical(phrase, advice))
            suggest = f"; instead: {rule.suggest}" if rule and rule.suggest else ""
            reason = f" ({rule.reason})" if rule else ""
            issues.append(
                Issue(field=field, code="off_brand", message=f"avoid {phrase!r}{reason}{suggest}")
            )
    return issues


def _in_proof_quote(field: str, folded: str, match: re.Match[str], proof: set[str]) -> bool:
    """The phrase sits in a quote block or quoted span whose words the proof gives."""
    spans = [(0, len(folded))] if field.endswith(".quote") else quoted_spans(folded)
    for start, end in spans:
        if start <= match.start() and match.end() <= end:
            key = quote_key(folded[start:end])
            return bool(key) and any(key in fact for fact in proof)
    return False


def _banned_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so "guaranteed results" wins over "guaranteed" at the same place.
    parts = [
        r"[\s\-\u2010\u2011\u2013]+".join(re.escape(word) for word in re.split(r"[\s\-]+", fold(p)))
        for p in sorted(phrases, key=len, reverse=True)
    ]
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(parts) + r")(?![a-z0-9])")


def _canonical(found: str, advice: Mapping[str, object]) -> str:
    key = " ".join(re.split(r"[\s\-\u2010\u2011\u2013]+", found))
    return next((p for p in advice if " ".join(re.split(r"[\s\-]+", p)) == key), found)


def supported_claims(
    payload: object, *, brief: object, published: Iterable[str] = ()
) -> list[Issue]:
    """No number or customer quote the brief (or the company's published terms) does not state
    (`unsupported_claim`).

    A customer quote is a quote block, or quoted words with an attribution; a scare-quoted
    phrase is not one. Quotes match the proof whatever their punctuation and case. A number
    that drops the scale the brief gives it ("1.2" for "1.2 million") is named as such.
    """
    facts = brief_facts(brief)
    known = {norm for fact in [*facts, *published] for _raw, norm in numbers(fact)}
    proof_text = " | ".join(quote_key(fact) for fact in facts)
    issues = []
    for field, text in text_fields(payload):
        for raw, norm in numbers(text):
            if norm in known:
                continue
            scaled = [f"{norm}{scale}" for scale in SCALES if f"{norm}{scale}" in known]
            message = (
                f"the number {raw!r} drops the scale the brief's proof gives it"
                f" ({scaled[0]!r}); keep it whole"
                if scaled
                else f"the number {raw!r} is not in the brief's proof"
            )
            issues.append(_claim(field, message))
        spans = [text] if field.endswith(".quote") else list(customer_quotes(text))
        issues.extend(
            _claim(field, f"the quote {span[:60]!r} is not in the brief's proof")
            for span in spans
            if quote_key(span) and quote_key(span) not in proof_text
        )
    return issues


def universal_words(payload: object, *, brief: object | None) -> list[Issue]:
    """Universal words and multipliers judged by what their sentence asserts (gate/assertions.py).

    A result claim the brief does not state is an error (`unsupported_claim`); without a brief
    it is a warning (`unverified_claim`); a promise about the service's own practice is a
    warning (`universal_promise`).
    """
    facts = brief_facts(brief) if brief is not None else []
    issues = []
    for field, text in text_fields(payload):
        caption = _is_stat_caption(payload, field)
        seen: set[str] = set()
        for found in assertions(text, stated=facts, caption=caption):
            if found.supported or found.word in seen:
                continue
            seen.add(found.word)
            issues.append(_judged(field, found.word, claim=found.claim, briefed=brief is not None))
    return issues


def _judged(field: str, word: str, *, claim: bool, briefed: bool) -> Issue:
    if claim and briefed:
        return _claim(
            field,
            f"{word!r} asserts a result about clients or outcomes that the brief's proof does "
            "not state; say what the proof says (e.g. '18 of 20 clients')",
        )
    if claim:
        return Issue(
            field=field,
            code="unverified_claim",
            message=f"{word!r} asserts a result about clients or outcomes; check it holds",
            severity="warning",
        )
    return Issue(
        field=field,
        code="universal_promise",
        message=f"{word!r} promises something about the service; make sure it is kept every time",
        severity="warning",
    )


def _is_stat_caption(payload: object, field: str) -> bool:
    parts = field.split(".")
    if len(parts) != 5 or parts[0] != "blocks" or parts[4] != "label" or not parts[1].isdigit():
        return False
    blocks = dict(_blocks(payload))
    block = blocks.get(int(parts[1]))
    return block is not None and block.get("type") == "stats"


def _claim(field: str, message: str) -> Issue:
    return Issue(field=field, code="unsupported_claim", message=message)
