"""Account and person scores (0-100), trends and their reasons. Pure; `now` is passed in.

Every folded event adds heat: its weight (the stage its type shows, plus a bonus when it brings
a new person to the account or one of a person's first distinct pages) halved every
HALF_LIFE_DAYS since it happened. A roll-up keeps `heat_log` = log2(sum of w * 2^(t/H)), t in
days since the epoch, so storing an event is one `add_heat` and the heat now is
2^(heat_log - now/H). The score is 100 * heat / (heat + SCORE_HALF): one fresh hand-raise
scores about 50, and it falls by half every week without new touches. Because every roll-up's
heat decays at the same rate, ordering by `heat_log` is ordering by score at any `now`: the
accounts list sorts by score with an index on a stored number.

`trend` compares the events of the last 7 days with the 28 before (daily counts kept for 35
days, by when each touch happened): `heating` at 1.5 times the earlier daily rate or more,
`cooling` at half or less, `quiet` with no touch in those 35 days.
"""

import math
from datetime import UTC, datetime, timedelta
from typing import Literal

from schemas.signals.evidence import Evidence, Reason, describe

HALF_LIFE_DAYS = 7.0
SCORE_HALF = 25.0  # the heat that scores 50
STAGE_WEIGHTS = (1.0, 3.0, 8.0, 25.0)  # aware, engaged, evaluating, hand_raiser
NEW_PERSON_BONUS = 5.0
NEW_PAGE_BONUS = 1.0
DAYS_KEPT = 35
_US_PER_DAY = 86_400_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Trend = Literal["heating", "steady", "cooling", "quiet"]
_LOG2: dict[float, float] = {}  # the few weights events have


def micros(when: datetime) -> int:
    """Microseconds since the epoch (exact, as schemas/signals/fold.to_us)."""
    return (when - _EPOCH) // timedelta(microseconds=1)


def event_weight(rank: int, *, new_person: bool, new_page: bool) -> float:
    """What one event adds to heat at the moment it happened."""
    return (
        STAGE_WEIGHTS[rank]
        + (NEW_PERSON_BONUS if new_person else 0.0)
        + (NEW_PAGE_BONUS if new_page else 0.0)
    )


def add_heat(heat_log: float | None, weight: float, occurred_us: int) -> float:
    """heat_log with one more event (log-domain sum: no overflow, exact order-independence
    is not needed since both stores fold in stream order)."""
    log_weight = _LOG2.get(weight)
    if log_weight is None:
        log_weight = _LOG2[weight] = math.log2(weight)
    term = log_weight + occurred_us / _US_PER_DAY / HALF_LIFE_DAYS
    if heat_log is None:
        return term
    high, low = (heat_log, term) if heat_log >= term else (term, heat_log)
    return high + math.log2(1.0 + 2.0 ** (low - high))


def add_day(days: dict[str, int], occurred_us: int) -> None:
    """Count one event on its day; past DAYS_KEPT days, those before the newest 35 go."""
    key = str(occurred_us // _US_PER_DAY)
    count = days.get(key)
    if count is not None:  # nearly always: the same day as the last event
        days[key] = count + 1
        return
    days[key] = 1
    if len(days) > DAYS_KEPT:
        newest = max(int(k) for k in days)
        for old in [k for k in days if int(k) <= newest - DAYS_KEPT]:
            del days[old]


def heat_at(heat_log: float | None, now: datetime) -> float:
    """The heat at `now`."""
    if heat_log is None:
        return 0.0
    now_days = (now - _EPOCH) / timedelta(days=1)
    return float(2.0 ** min(heat_log - now_days / HALF_LIFE_DAYS, 60.0))


def score_at(heat_log: float | None, now: datetime) -> int:
    """The score at `now`, 0 to 100."""
    heat = heat_at(heat_log, now)
    return round(100 * heat / (heat + SCORE_HALF))


def heat_log_for_score(score: int, now: datetime) -> float | None:
    """The least heat_log that scores at least `score` at `now` (None: any). 100 is reached:
    round() gives 100 from 99.5, a heat of 4,975."""
    if score <= 0:
        return None
    heat = SCORE_HALF * (score - 0.5) / (100.5 - score)  # round() half-way, so at least score
    now_days = (now - _EPOCH) / timedelta(days=1)
    return math.log2(heat) + now_days / HALF_LIFE_DAYS


def days_back(then: datetime, now: datetime) -> int:
    """UTC days from `then`'s day to `now`'s: 0 today, 1 yesterday. Daily counts are kept per
    UTC day, so every reason counts days this way and none contradicts another."""
    return (now - _EPOCH) // timedelta(days=1) - (then - _EPOCH) // timedelta(days=1)


def window_counts(days: dict[str, int], now: datetime) -> tuple[int, int]:
    """Events in the last 7 days (today and the 6 UTC days before) and in the 28 before."""
    today = (now - _EPOCH) // timedelta(days=1)
    recent = sum(n for d, n in days.items() if today - 7 < int(d) <= today)
    before = sum(n for d, n in days.items() if today - 35 < int(d) <= today - 7)
    return recent, before


def trend_at(days: dict[str, int], now: datetime) -> Trend:
    """heating, steady or cooling: the last 7 days' daily rate against the 28 days' before;
    quiet when neither holds a touch (an old import is not "steady")."""
    recent, before = window_counts(days, now)
    if not recent and not before:
        return "quiet"
    recent_rate, before_rate = recent / 7, before / 28
    if recent and recent_rate >= 1.5 * before_rate:
        return "heating"
    if before and recent_rate <= 0.5 * before_rate:
        return "cooling"
    return "steady"


def _ago(then: datetime, now: datetime) -> str:
    hours = (now - then) // timedelta(hours=1)
    if hours < 1:
        return "less than an hour ago"
    if hours < 24:
        return f"{hours} hour{'s' if hours != 1 else ''} ago"
    days = days_back(then, now)  # as the touch counts: 7 days ago is not in the last 7 days
    return f"{days} day{'s' if days != 1 else ''} ago"


def score_why(
    *,
    stage: str,
    stage_reached_at: datetime | None,
    stage_event: Evidence | None,
    last_seen: datetime,
    last_event: Evidence | None,
    days: dict[str, int],
    people_this_week: int | None,
    top_page: str | None,
    now: datetime,
) -> list[Reason]:
    """The few facts that move a score most, strongest first (at most 4), each with the
    event(s) behind it; the stage and the last touch name theirs in words too."""
    reasons: list[Reason] = []
    if stage != "aware" and stage_reached_at is not None:
        text = f"{stage.replace('_', ' ')} since {_ago(stage_reached_at, now)}"
        reasons.append(_reason(text, stage_event))
    recent, before = window_counts(days, now)
    this_week = [last_event] if last_event and days_back(last_event.occurred_at, now) < 7 else []
    if recent or before:
        touches = "touch" if recent == 1 else "touches"
        text = f"{recent} {touches} in the last 7 days, {before} in the 28 days before"
        reasons.append(Reason(reason=text, events=this_week if recent else []))
    if people_this_week:
        plural = "people were" if people_this_week != 1 else "person was"
        text = f"{people_this_week} {plural} active this week"
        reasons.append(Reason(reason=text, events=this_week))
    if top_page:
        reasons.append(Reason(reason=f"most read page: {top_page}", events=[]))
    reasons.append(_reason(f"last touch {_ago(last_seen, now)}", last_event))
    return reasons[:4]


def _reason(text: str, evidence: Evidence | None) -> Reason:
    """A reason that names its event in words (when one was kept)."""
    if evidence is None:
        return Reason(reason=text, events=[])
    return Reason(reason=f"{text}: {describe(evidence)}", events=[evidence])
