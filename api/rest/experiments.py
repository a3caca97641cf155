"""Content API under /api/public/content/pages/{slug}/experiment: a page's experiment as it
stands (each arm's visitors, conversions, rate, 95% credible interval, probability of being
best and share), and ending it with a winner.

Views parse, call services/page_experiments.py and render; its errors become answers in
api/errors.py (`experiment_errors`). A partner sees only its own pages' experiments.
"""

from __future__ import annotations

import numpy as np
from flask import Blueprint, Response, request

from api.auth import KeyCheck
from api.config import AppConfig
from api.errors import answer_unavailable, experiment_errors, unsupported_media_type
from api.rest.content import PREFIX, editor_of
from api.rest.idempotency import Idempotency
from api.rest.json_body import parse_json
from api.rest.signal_query import refuse_parameters
from backends.bundle import Backends
from domain.experiments import Experiment
from gate.check import ruleset
from schemas.content.experiments import (
    ArmRecord,
    ExperimentBody,
    ExperimentEndInput,
    ExperimentRecord,
    StopRuleRecord,
)
from services.page_experiments import (
    ArmTally,
    ExperimentPorts,
    PageExperiment,
    end_page_experiment,
    page_experiment,
)
from services.pages import Editor

MAX_BODY_BYTES = 4 * 1024


def create_experiments_blueprint(
    *, backends: Backends, config: AppConfig, keys: KeyCheck, tally: ArmTally
) -> Blueprint:
    """A page's experiment: its standing, and ending it."""
    bp = Blueprint("experiments", __name__, url_prefix=PREFIX)
    answer_unavailable(bp, "The page store is unavailable; retry")
    idempotent = Idempotency(backends.idempotency, clock=backends.clock)
    brand = backends.catalog.brand
    ports = ExperimentPorts(
        pages=backends.pages,
        variants=backends.variants,
        experiments=backends.experiments,
        changed=backends.page_changes,
        brand=brand,
        ruleset=ruleset(brand),
        settings=config.experiment,
        tally=tally,
    )

    def standing(slug: str, editor: Editor) -> Response:
        with experiment_errors(slug):
            # Unseeded: the figures are Monte Carlo estimates, within about 0.005 of each other
            # from one read to the next.
            found = page_experiment(
                ports, slug=slug, editor=editor, now=backends.clock(), rng=np.random.default_rng()
            )
        return _json(_body(slug, found, config).model_dump_json(), 200)

    @bp.get("/<slug>/experiment")
    def get_experiment(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        return standing(slug, editor_of(principal))

    @bp.post("/<slug>/experiment/end")
    def end_experiment(slug: str) -> Response:
        principal = keys.require("content")
        refuse_parameters(request.args)
        payload = _json_body()

        def end() -> Response:
            body = ExperimentEndInput.model_validate(payload)
            editor = editor_of(principal)
            with experiment_errors(slug):
                end_page_experiment(
                    ports, slug=slug, winner=body.winner, editor=editor, now=backends.clock()
                )
            return standing(slug, editor)

        return idempotent.run(principal, {"experiment_end": slug, "body": payload}, end)

    return bp


def _body(slug: str, found: PageExperiment, config: AppConfig) -> ExperimentBody:
    experiment: Experiment | None = found.standing.experiment
    settings = config.experiment
    return ExperimentBody(
        experiment=ExperimentRecord(
            slug=slug,
            allocation=found.allocation.mode if found.allocation is not None else "none",
            status=experiment.status if experiment is not None else "none",
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
                ArmRecord(
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


def _json_body() -> object:
    if request.mimetype != "application/json":
        raise unsupported_media_type("Send the body as application/json")
    request.max_content_length = MAX_BODY_BYTES
    return parse_json(request.get_data(cache=True))


def _json(body: str, status: int) -> Response:
    return Response(body, status=status, mimetype="application/json")
