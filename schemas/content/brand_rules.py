"""The brand rules document (GET /api/public/content/brand): what the quality gate applies now."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.errors import Severity


class BannedPhraseRule(BaseModel):
    """One phrase the gate refuses, why, what to write instead, and where it is allowed."""

    model_config = ConfigDict(defer_build=True)

    phrase: str
    reason: str
    suggest: str = Field(description="What to write instead")
    allow: list[Literal["negated", "proof_quote"]] = Field(
        description="Contexts where the phrase passes (see `allowances`)"
    )


class GateRule(BaseModel):
    """One rule of the gate: the `code` its findings carry, and their severity."""

    model_config = ConfigDict(defer_build=True)

    code: str = Field(examples=["unsupported_claim"])
    severity: Severity
    applies_to: Literal["every page", "generated pages", "pages sent whole"]
    rule: str = Field(description="What the rule checks, in words")


class FieldLimit(BaseModel):
    """The limits of one field: characters for text, items for a list."""

    model_config = ConfigDict(defer_build=True)

    field: str = Field(examples=["blocks[hero].sub"])
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    required: bool = False


class BrandRules(BaseModel):
    """Every rule the gate applies: ICP vocabulary, banned wording, allowances, limits."""

    model_config = ConfigDict(defer_build=True)

    ruleset: str = Field(
        description="The gate and brand-rules version; stored pages carry it as gate.ruleset",
        examples=["gate-3+brand-3f2a9c1d"],
    )
    icp_vocabulary: list[str] = Field(
        description="A page sent whole names who it is for with one of these terms in the "
        "hero `sub`; a generated page names its brief's `icp`"
    )
    banned_wording: list[BannedPhraseRule]
    allowances: dict[str, str] = Field(
        description="The contexts a banned phrase's `allow` may name, and what each means"
    )
    rules: list[GateRule]
    limits: list[FieldLimit]
    voice: list[str] = Field(description="How the brand writes (guidance, not checked)")


class BrandRulesBody(BaseModel):
    """GET /api/public/content/brand."""

    model_config = ConfigDict(defer_build=True)

    ok: Literal[True] = True
    brand: BrandRules
