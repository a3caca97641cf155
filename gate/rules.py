"""The quality gate's rules: one pure function per rule, each from a raw page to its issues.

Every rule reads the raw JSON defensively (any shape may arrive) and leaves structure and
limits to the schema, so a rule never raises and never repeats a schema issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from gate.claims import brief_facts, brief_proof, numbers
from gate.context import customer_quotes, inflations, is_negated, quote_key, quoted_spans
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
    """The hero sub names who the page is for: the brief's ICP, else an ICP vocabulary term."""
    heroes = _heroes(payload)
    if not heroes:
        return []
    index, hero = heroes[0]
    sub = hero.get("sub")
    if not isinstance(sub, str) or not sub.strip():
        return []
    words = tokens(sub)
    icp = _brief_icp(brief)
    if icp is not None:
        if _names_brief_icp(words, icp):
            return []
        message = f"the hero sub must say who the page is for: the brief's ICP ({icp!r})"
    else:
        if any(contains_phrase(words, tokens(term)) for term in brand.icp_vocabulary):
            return []
        examples = ", ".join(brand.icp_vocabulary[:4])
        message = f"the hero sub must name who the page is for, e.g. {examples}"
    return [Issue(field=f"blocks.{index}.sub", code="icp_missing", message=message)]


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
    """No number, customer quote or inflating word the brief does not state (`unsupported_claim`).

    A customer quote is a quote block, or quoted words with an attribution; a scare-quoted
    phrase is not one. Quotes match the proof whatever their punctuation and case.
    """
    facts = brief_facts(brief)
    proof = brief_proof(brief)
    known = {norm for fact in [*facts, *published] for _raw, norm in numbers(fact)}
    proof_text = " | ".join(quote_key(fact) for fact in facts)
    issues = []
    for field, text in text_fields(payload):
        for raw, norm in numbers(text):
            if norm not in known:
                issues.append(_claim(field, f"the number {raw!r} is not in the brief's proof"))
        spans = [text] if field.endswith(".quote") else list(customer_quotes(text))
        issues.extend(
            _claim(field, f"the quote {span[:60]!r} is not in the brief's proof")
            for span in spans
            if quote_key(span) and quote_key(span) not in proof_text
        )
        issues.extend(
            _claim(field, f"{word!r} claims more than the brief's proof states")
            for word in dict.fromkeys(inflations(text, proof, stated=facts))
        )
    return issues


def _claim(field: str, message: str) -> Issue:
    return Issue(field=field, code="unsupported_claim", message=message)
