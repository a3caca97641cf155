"""Content API under /api/public/content/pages/{slug}/experiment: a page's experiment as it
stands (each arm's visitors, conversions, rate, 95% credible interval, probability of being
best and share), and ending it with a winner.

Views parse, call services/page_experiments.py and render; its errors become answers in
api/errors.py (`experiment_errors`). A partner sees only its own pages' experiments.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from flask import Blueprint, Response, request

from api.auth import KeyCheck
from api.config import AppConfig
from api.errors import answer_unavailable, experiment_errors
from api.rest.content import PREFIX
from api.rest.idempotency import Idempotency
from api.rest.json_body import request_json
from api.rest.signal_query import refuse_parameters
from api.rest.variant_serving import Split
from backends.ports import IdempotencyStore, StoredAllocation
from domain.experiments import Experiment
from schemas.content.experiments import (
    ExperimentArmRecord,
    ExperimentStatusName,
    PageExperimentBody,
    PageExperimentEndInput,
    PageExperimentRecord,
    StopRuleRecord,
)
from services.page_experiments import (
    ExperimentPorts,
    PageExperiment,
    end_page_experiment,
    page_experiment,
    serving_split,
)
from services.pages import Editor

MAX_BODY_BYTES = 4 * 1024


def experiment_split(ports: ExperimentPorts, *, clock: Callable[[], datetime]) -> Split:
    """The split /p/{slug} serves: the allocation's, adaptive shares brought up to date."""

    def split(
        slug: str, allocation: StoredAllocation, variant_ids: set[str]
    ) -> list[tuple[str, float]]:
        return serving_split(
            ports,
            slug=slug,
            allocation=allocation,
            variant_ids=variant_ids,
            now=clock(),
        )

    return split


def create_experiments_blueprint(
    *, ports: ExperimentPorts, idempotency: IdempotencyStore, config: AppConfig, keys: KeyCheck
) -> Blueprint:
    """A page's experiment: its standing, and ending it (the clock is the page unit's)."""
    bp = Blueprint("experiments", __name__, url_prefix=PREFIX)
    answer_unavailable(bp, "The page store is unavailable; retry")
    clock = ports.pages.clock
    idempotent = Idempotency(idempotency, clock=clock)

    def standing(slug: str, editor: Editor) -> Response:
        with experiment_errors(slug):
            # Unseeded: the figures are Monte Carlo estimates, within about 0.005 of each other
            # from one read to the next.
            found = page_experiment(ports, slug=slug, editor=editor, now=clock())
        return _json(_body(slug, found, config).model_dump_json(), 200)

    @bp.get("/<slug>/experiment")
    def get_experiment(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        return standing(slug, principal.editor)

    @bp.post("/<slug>/experiment/end")
    def end_experiment(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        payload = request_json(request, max_bytes=MAX_BODY_BYTES)

        def end() -> Response:
            body = PageExperimentEndInput.model_validate(payload)
            editor = principal.editor
            with experiment_errors(slug):
                end_page_experiment(
                    ports, slug=slug, winner=body.winner, editor=editor, now=clock()
                )
            return standing(slug, editor)

        return idempotent.run(principal, {"experiment_end": slug, "body": payload}, end)

    return bp


def _body(slug: str, found: PageExperiment, config: AppConfig) -> PageExperimentBody:
    experiment: Experiment | None = found.standing.experiment
    settings = config.experiment
    return PageExperimentBody(
        experiment=PageExperimentRecord(
            slug=slug,
            allocation=found.allocation.mode if found.allocation is not None else "none",
            status=_status(experiment, found),
            counted_from=found.counted_from,
            recomputed_at=experiment.recomputed_at if experiment else None,
            winner=experiment.winner if experiment else None,
            ended_at=experiment.ended_at if experiment else None,
            ended_by=experiment.ended_by if experiment else None,
            stop_rule=StopRuleRecord(
                on=settings.auto_stop,
                probability=settings.stop_rule.probability,
                min_conversions=settings.stop_rule.min_conversions,
            ),
            arms=[
                ExperimentArmRecord(
                    arm=arm.arm,
                    visitors=arm.visitors,
                    conversions=arm.conversions,
                    rate=arm.rate,
                    interval=arm.interval,
                    probability_best=arm.probability_best,
                    share=arm.share,
                )
                for arm in found.standing.arms
            ],
        )
    )


def _status(experiment: Experiment | None, found: PageExperiment) -> ExperimentStatusName:
    # A fixed split runs an experiment without a stored record until it ends.
    if experiment is not None:
        return experiment.status
    return "running" if found.allocation is not None else "none"


def _json(body: str, status: int) -> Response:
    return Response(body, status=status, mimetype="application/json")
