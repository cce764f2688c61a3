"""View ▸ Arrows: velocity, force and momentum arrows over the mechanism."""
