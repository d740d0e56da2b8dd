"""Renderers: the same plans, in the formats people and code review tools read."""
