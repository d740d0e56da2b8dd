"""`md_inert`'s token pattern matches only the characters that need an escape; the text is the
same as when every character went through the token callback (the pattern before issue 23)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.text import safe as text

_EVERY_CHARACTER = re.compile(text._MD_TOKEN.pattern.rsplit("|(?P<char>", 1)[0] + "|(?P<char>.)", re.S)


def _escaping_every_character(s: str) -> str:
    out = _EVERY_CHARACTER.sub(text._md_token, text.one_line(s))
    return text._INTRAWORD_UNDERSCORE.sub("_", out) if "\\_" in out else out


@settings(derandomize=True, database=None, max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("ab_Z09 \\`*[]|~&<>@#:/.w,;!?'\"()\t\n\u2028é漢-+")), max_size=40))
def test_the_same_text_as_escaping_every_character(s: str) -> None:
    assert text.md_inert(s) == _escaping_every_character(s)


def test_urls_mentions_and_punctuation() -> None:
    for s in (
        "see https://x.y/a_b, then www.example.com",
        "@team #12 a@b.c",
        "SCRATCH_2 *x* [l](u) a|b ~s~ <b>&",
        "x://y",
    ):
        assert text.md_inert(s) == _escaping_every_character(s)
    assert "(?P<char>.)" in _EVERY_CHARACTER.pattern and "(?P<char>.)" not in text._MD_TOKEN.pattern
