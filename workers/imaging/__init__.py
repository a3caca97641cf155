"""Hero images: the HeroImager port, the procedural renderer and the Imagen adapter."""
