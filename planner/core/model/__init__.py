"""The declared cluster (frozen records that keep their key paths) and the findings about it."""
