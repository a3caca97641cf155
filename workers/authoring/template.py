"""TemplateWriter: the built-in author. No network; the page is composed from the brief.

workers/authoring/composer.py plans and writes the page. With the gate's feedback, the writer
leaves out every non-hero block the gate flagged (the composer's copy is screened against the
same rules, so this is a last resort).
"""

from __future__ import annotations

from schemas.catalog import Brand
from schemas.content.jobs import BriefNote, GenerationBrief
from schemas.errors import Issue
from schemas.public import Company
from workers.authoring.base import PagePayload
from workers.authoring.composer import ComposedPage, compose_page
from workers.authoring.desk import ANGLE_VOICE, ANGLES
from workers.authoring.library import Library
from workers.authoring.voices import next_voice, tone_note, voice_of


class TemplateWriter:
    """Author that needs no model: a page composed from the brief, the proof and the company.

    `angle` asks for a variant of the page (desk.py): 0 is the page as it always was, 1 another
    headline, 2 another proof first, 3 another voice; each is gated like any page.
    """

    def __init__(self, *, angle: int = 0, library: Library | None = None) -> None:
        if angle not in range(ANGLES):
            raise ValueError(f"angle must be 0 to {ANGLES - 1}, not {angle}")
        self.angle = angle
        self.library = library  # the company's research, blog and careers (library.py)

    def at_angle(self, angle: int) -> TemplateWriter:
        """The built-in writer at another angle, with the same library."""
        return TemplateWriter(angle=angle, library=self.library)

    def write(
        self,
        brief: GenerationBrief,
        *,
        brand: Brand,
        company: Company,
        feedback: list[Issue] | None,
    ) -> PagePayload:
        """A SitePageInput-shaped payload for the brief."""
        payload = compose_page(
            brief, brand=brand, company=company, angle=self.angle, library=self.library
        ).payload
        return _drop_flagged(payload, feedback) if feedback else payload

    def brief_notes(
        self, brief: GenerationBrief, *, brand: Brand, company: Company
    ) -> list[BriefNote]:
        """The sections left out because nothing answers them, a goal the page cannot serve,
        and a tone that names none of the voices (the page is in the direct voice)."""
        # The same page `write` gave: every choice is seeded by the brief and the angle.
        notes = list(
            compose_page(
                brief, brand=brand, company=company, angle=self.angle, library=self.library
            ).notes
        )
        if self.angle == ANGLE_VOICE:  # the variant's own voice, whatever the tone names
            voice = next_voice(voice_of(brief.tone)).name
            tone: BriefNote | None = BriefNote(
                field="tone",
                code="not_used",
                message=f"this variant of the page is written in the {voice} voice",
            )
        else:
            tone = tone_note(brief.tone)
        return notes + ([] if tone is None else [tone])

    def _compose(self, brief: GenerationBrief, *, brand: Brand, company: Company) -> ComposedPage:
        return compose_page(
            brief, brand=brand, company=company, angle=self.angle, library=self.library
        )


def _drop_flagged(payload: PagePayload, feedback: list[Issue]) -> PagePayload:
    """The payload without every non-hero block the gate flagged."""
    flagged = set()
    for issue in feedback:
        parts = issue.field.split(".")
        if len(parts) > 1 and parts[0] == "blocks" and parts[1].isdigit() and parts[1] != "0":
            flagged.add(int(parts[1]))
    blocks = [b for i, b in enumerate(payload["blocks"]) if i not in flagged]
    return {**payload, "blocks": blocks}
