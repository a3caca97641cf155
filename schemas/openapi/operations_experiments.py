"""The Content API's experiment rows of the OpenAPI table: a page's standing, and its end."""

from schemas.content.experiments import PageExperimentBody, PageExperimentEndInput
from schemas.openapi.operation import IDEMPOTENCY, KEYED, SLUG, Operation, Reply

__all__ = ["EXPERIMENT_OPERATIONS"]

PAGES = "/api/public/content/pages"

EXPERIMENT_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get",
        f"{PAGES}/{{slug}}/experiment",
        "getPageExperiment",
        "Content",
        "A page's experiment as it stands",
        "content",
        (
            Reply(
                200,
                "The allocation, the experiment's state and each arm's visitors, conversions,"
                " rate, 95% credible interval, probability of being best and current share",
                PageExperimentBody,
            ),
        ),
        description="Counted from the experiment's start (the page's stats by variant). With an"
        " adaptive allocation, shares older than EXPERIMENT_RECOMPUTE_SECONDS are recomputed"
        " first, and the stop rule (when on) may end the experiment. Pages are each partner's"
        " own: another partner's page answers 404, as an unknown slug does.",
        params=(SLUG,),
        errors=(400, *KEYED, 404, 503),
    ),
    Operation(
        "post",
        f"{PAGES}/{{slug}}/experiment/end",
        "endPageExperiment",
        "Content",
        "End a page's experiment with a winner",
        "content",
        (Reply(200, "Ended; every visitor gets the page", PageExperimentBody),),
        request=PageExperimentEndInput,
        description="A variant's content becomes the page's next version through today's"
        " quality gate (422 with its issues, and nothing changes, when it fails); the history"
        " keeps the version before. `control` keeps the page as it is. Ending again with the"
        " same winner changes nothing; another winner is 409 `experiment_ended`.",
        params=(SLUG, IDEMPOTENCY),
        errors=(400, *KEYED, 404, 409, 415, 422, 503),
    ),
)
