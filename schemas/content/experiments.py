"""Content API bodies of a page's experiment: its standing, and ending it with a winner."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# `none`: no allocation was ever set (every visitor gets the control).
ExperimentStatusName = Literal["none", "running", "ended"]


class PageExperimentEndInput(BaseModel):
    """POST .../pages/{slug}/experiment/end: the arm that won."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    winner: str = Field(
        min_length=1,
        max_length=32,
        description="`control` (the page as it is) or a variant id; a variant's content becomes"
        " the page's next version, through the gate",
        examples=["b"],
    )


class ExperimentArmRecord(BaseModel):
    """One arm's standing since the experiment started."""

    model_config = ConfigDict(defer_build=True)

    arm: str = Field(description="`control` or a variant id", examples=["b"])
    visitors: int = Field(ge=0, description="Unique visitors served this arm")
    conversions: int = Field(ge=0, description="Lead forms sent from this arm")
    rate: float = Field(ge=0, description="conversions / visitors (0 with no visitors)")
    interval: tuple[float, float] = Field(
        description="95% credible interval of the true rate: Beta(1 + conversions,"
        " 1 + visitors - conversions), from 10,000 draws"
    )
    probability_best: float = Field(
        ge=0, le=1, description="Probability that this arm's true rate is the highest"
    )
    share: float = Field(ge=0, le=1, description="Fraction of new visitors served this arm now")


class StopRuleRecord(BaseModel):
    """The stop rule as configured (EXPERIMENT_AUTO_STOP and its two settings)."""

    model_config = ConfigDict(defer_build=True)

    on: bool
    probability: float = Field(description="P(best) at which the leading arm wins")
    min_conversions: int = Field(description="Conversions every arm needs first")


class PageExperimentRecord(BaseModel):
    """A page's experiment and each arm's standing."""

    model_config = ConfigDict(defer_build=True)

    slug: str
    allocation: Literal["none", "fixed", "adaptive"] = Field(
        description="`none` while no allocation was set (every visitor sees the control)"
    )
    status: ExperimentStatusName
    counted_from: datetime | None = Field(
        description="The experiment's start (else the allocation's last setting); the counts"
        " are the page's stats by variant from that UTC day on"
    )
    recomputed_at: datetime | None = Field(
        description="When the adaptive shares were last computed"
    )
    winner: str | None = None
    ended_at: datetime | None = None
    ended_by: Literal["api", "stop_rule"] | None = None
    stop_rule: StopRuleRecord
    arms: list[ExperimentArmRecord]


class PageExperimentBody(BaseModel):
    """GET .../pages/{slug}/experiment and POST .../experiment/end."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    experiment: PageExperimentRecord
