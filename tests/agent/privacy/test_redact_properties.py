"""Properties of the redactor over arbitrary text: total, idempotent, ordinary text untouched."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from termwise.agent.privacy.redact import redact

# Pieces of the syntax the redactor looks at, so generated text reaches its deeper paths.
FRAGMENTS = [
    "password",
    "token",
    "key",
    "secret",
    "Token",
    "_TOKEN",
    "cloudflare",
    "sumo",
    "=",
    ":",
    ":=",
    "::=",
    ".=",
    "=>",
    " = ",
    ": ",
    '"',
    "'",
    "`",
    ",",
    ";",
    "\n",
    "\t",
    "  ",
    "kind: Secret\n",
    "data:\n",
    "stringData:\n",
    "  a: ",
    "|\n",
    '"data": {',
    "}",
    "eyJ",
    ".",
    "curl ",
    "-u ",
    "--user ",
    "Authorization: ",
    "Bearer ",
    "<token>",
    "</token>",
    "https://",
    "@",
    "webhook.office.com/webhookb2/",
    "sgp_",
    "-----BEGIN PRIVATE KEY-----\n",
    "-----END PRIVATE KEY-----",
    "MIIE",
    "BUNDLE_X__COM=",
    "$",
    "{{",
    "${",
    "xxxxxxxx",
    "[REDACTED:token]",
    "\\n",
]
TEXT = st.lists(
    st.one_of(
        st.sampled_from(FRAGMENTS),
        st.text(min_size=1, max_size=12),
        st.from_regex(r"[A-Za-z0-9+/_-]{8,48}", fullmatch=True),
    ),
    max_size=40,
).map("".join)
# Prose without a secret value in it: everyday words (the secret-ish ones too), numbers and
# sentence punctuation (no `name: value` or `name=value` pairs, which may hold a secret).
WORDS = (
    "the a to of and run git push pull build test deploy key token password secret auth login "
    "api user name file path error failed passed expired rotate the new old value set get list "
    "config env docker kubectl npm pip install update main branch origin commit version release "
    "server client request response timeout retry cache log debug info warning"
).split()
ORDINARY = st.lists(
    st.tuples(
        st.one_of(st.sampled_from(WORDS), st.from_regex(r"[0-9]{1,4}", fullmatch=True)),
        st.sampled_from([" ", " ", "\n", ", ", ". ", " (", ") ", " - ", "? ", "! "]),
    ),
    max_size=40,
).map(lambda pairs: "".join(word + sep for word, sep in pairs))
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(TEXT)
def test_any_text_is_redacted_without_raising(text: str) -> None:
    """Arbitrary text (with secret-ish syntax mixed in) never raises; kinds are sorted and known."""
    result = redact(text)
    assert isinstance(result.text, str)
    assert result.found == sorted(set(result.found))
    for kind in result.found:
        assert f"[REDACTED:{kind}]" in result.text


@PROPERTY
@given(TEXT)
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    """The output of redaction is a fixed point: a second pass finds nothing new to replace."""
    once = redact(text).text
    assert redact(once).text == once


@PROPERTY
@given(ORDINARY)
def test_ordinary_text_is_unchanged(text: str) -> None:
    """Words, numbers and punctuation without any credential come back byte for byte."""
    result = redact(text)
    assert result.text == text and result.found == []


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FRAGMENTS), st.integers(min_value=200, max_value=2000))
def test_repeated_fragments_keep_line_count(fragment: str, times: int) -> None:
    """Long runs of one fragment are processed whole; redaction never adds or drops lines
    except inside replaced multi-line values (keys, Secret values)."""
    text = fragment * times
    out = redact(text).text
    if "[REDACTED:" not in out:
        assert out == text
