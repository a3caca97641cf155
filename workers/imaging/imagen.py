"""ImagenImager: Imagen on Vertex AI through google-genai `generate_images`."""

from __future__ import annotations

import io
import warnings

from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from PIL import Image, UnidentifiedImageError

from workers.imaging.base import ImageModelError


class ImagenImager:
    """HeroImager on Vertex AI `models/{model}:predict`, asked for a 16:9 picture."""

    def __init__(self, client: genai.Client, *, model: str) -> None:
        self._client = client
        self._model = model

    def render(self, *, slug: str, topic: str, palette: dict[str, str]) -> Image.Image:
        """The generated picture (cropped to 1200x630 by hero_files). Raises: ImageModelError."""
        colours = ", ".join(palette.get(k, "") for k in ("paper", "ink", "accent", "accent-soft"))
        prompt = (
            "Abstract editorial hero illustration, flat shapes, no text, no people, no logos, "
            f"limited palette {colours}. Theme: {topic}"
        )
        try:
            with warnings.catch_warnings():
                # google-genai marks generate_images deprecated (removal not before 2027-01);
                # Imagen on Vertex AI still serves :predict, which is what this adapter speaks.
                warnings.filterwarnings("ignore", message="The generate_images method")
                response = self._client.models.generate_images(
                    model=self._model,
                    prompt=prompt,
                    config=types.GenerateImagesConfig(number_of_images=1, aspect_ratio="16:9"),
                )
        except genai_errors.APIError as err:
            raise ImageModelError(f"imagen {err.code}") from err
        except ValueError as err:  # google-genai raises it for bodies it cannot read
            raise ImageModelError("imagen: unreadable answer") from err
        generated = response.generated_images or []
        image = generated[0].image if generated else None
        if image is None or not image.image_bytes:
            raise ImageModelError("imagen: no image (filtered or refused)")
        try:
            picture = Image.open(io.BytesIO(image.image_bytes))
            picture.load()
        except (UnidentifiedImageError, OSError) as err:
            raise ImageModelError("imagen: not an image") from err
        return picture
