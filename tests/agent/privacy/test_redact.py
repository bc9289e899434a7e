"""Secret redaction: every kind becomes a marker naming it; ordinary text stays as it was."""

from __future__ import annotations

import pytest
from termwise.agent.privacy.redact import redact

# (text containing a secret, the secret itself, the kind reported)
CASES = [
    (
        "export OPENAI_API_KEY=sk-proj-Ab3dEfGh1jKlMn0pQrStUvWxYz_12345",
        "sk-proj-Ab3dEfGh1jKlMn0pQrStUvWxYz_12345",
        "openai-key",
    ),
    (
        "key: sk-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0",
        "sk-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0",
        "openai-key",
    ),
    (
        "ANTHROPIC sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-wxyz",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv-wxyz",
        "anthropic-key",
    ),
    (
        "deepseek sk-0123456789abcdef0123456789abcdef",
        "sk-0123456789abcdef0123456789abcdef",
        "deepseek-key",
    ),
    (
        "GOOGLE=AIzaSyD4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T",
        "AIzaSyD4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T",
        "google-api-key",
    ),
    (
        "token ghp_0123456789abcdefghijABCDEFGHIJklmnop",
        "ghp_0123456789abcdefghijABCDEFGHIJklmnop",
        "github-token",
    ),
    (
        "ghs_0123456789abcdefghijABCDEFGHIJklmnop",
        "ghs_0123456789abcdefghijABCDEFGHIJklmnop",
        "github-token",
    ),
    (
        "github_pat_11AAAAAAA0123456789_abcdefghijklmnopq",
        "github_pat_11AAAAAAA0123456789_abcdefghijklmnopq",
        "github-token",
    ),
    ("CI_TOKEN glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-AbCdEfGhIjKlMnOpQrSt", "gitlab-token"),
    (
        "bot xoxb-1234567890-0987654321-AbCdEfGh",
        "xoxb-1234567890-0987654321-AbCdEfGh",
        "slack-token",
    ),
    (
        "post to https://hooks.slack.com/services/T0001/B0001/AbCdEfGh12345",
        "hooks.slack.com/services/T0001",
        "slack-webhook",
    ),
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-access-key-id"),
    ("ASIAY34FZKBOKMUTVV7A in use", "ASIAY34FZKBOKMUTVV7A", "aws-access-key-id"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws-secret-key",
    ),
    (
        "Cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9",
        "jwt",
    ),
    ("fatal: https://alice:Tr0ub4dor@git.example.com/x.git", "Tr0ub4dor", "url-password"),
    ("postgres://app:pa55@db:5432/prod", "pa55", "url-password"),
    ("DB_PASSWORD=hunter2", "hunter2", "password"),
    ('export PGPASSWORD="correct horse"', "correct horse", "password"),
    ('{"password": "p@ss\\"word"}', 'p@ss\\"word', "password"),
    ("password: s3cr3t-yaml", "s3cr3t-yaml", "password"),
    ("mysql --password Xy7!kLm9qR2z", "Xy7!kLm9qR2z", "password"),
    ("GITHUB_TOKEN=abc123def456", "abc123def456", "token"),
    ("client_secret = 'topsecretvalue'", "topsecretvalue", "secret"),
    ('"api_key": "live_4f2c9a"', "live_4f2c9a", "api-key"),
    ("api-key: abcd-efgh", "abcd-efgh", "api-key"),
    ("Authorization: Bearer abcdef123456789xyz", "abcdef123456789xyz", "bearer-token"),
    # Signing and session keys are named secrets now (were judged by entropy).
    ("signing_key=Zx8K2mQ9vL4pR7tW1yB3nC6", "Zx8K2mQ9vL4pR7tW1yB3nC6", "api-key"),
    ("SESSION_KEY: 9f8e7d6c5b4a3F2E1D0C", "9f8e7d6c5b4a3F2E1D0C", "api-key"),
]


@pytest.mark.parametrize(
    ("text", "secret", "kind"), CASES, ids=[c[2] + str(i) for i, c in enumerate(CASES)]
)
def test_every_kind_is_replaced_by_its_marker(text: str, secret: str, kind: str) -> None:
    """The secret is gone and a marker naming its kind stands in its place."""
    result = redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert kind in result.found


PEM_BODY = "MIIEowIBAAKCAQEAx7Y2aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcd\nefGhIjKlMnOpQrStUvWxYz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab==\n"


def test_pem_block_split_across_lines_and_wraps() -> None:
    """A private key whose BEGIN marker is wrapped mid-word is removed whole, text after kept."""
    text = (
        "cat id_rsa\n-----BEGIN RSA PRIV\nATE KEY-----\n"
        + PEM_BODY
        + "-----END RSA PRIVATE\n KEY-----\n$ next"
    )
    result = redact(text)
    assert "MIIEow" not in result.text and "efGhIj" not in result.text
    assert result.text == "cat id_rsa\n[REDACTED:private-key]\n$ next"
    assert result.found == ["private-key"]


def test_pem_block_split_over_two_blocks() -> None:
    """A key cut in two pieces (BEGIN in one block, END in the next) is removed from both."""
    first = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + PEM_BODY
    second = "ZZabcdefGhIjKlMnOpQrStUvWxYz01234567\n-----END OPENSSH PRIVATE KEY-----\nDone."
    r1, r2 = redact(first), redact(second)
    assert "MIIEow" not in r1.text and r1.found == ["private-key"]
    assert "ZZabcdef" not in r2.text and r2.text.endswith("\nDone.") and r2.found == ["private-key"]


def test_ordinary_text_is_left_alone() -> None:
    """Commands, paths, words like 'token' in prose and placeholders are not secrets."""
    text = (
        "PWD=/home/me/src\nmax_tokens=100\nthe token expired, run gh auth login\n"
        "password: ${DB_PASSWORD}\nkeyboard=us\nmonkey: banana\nsk-learn is not a key\n"
        "git push https://github.com/a/b.git"
    )
    result = redact(text)
    assert result.text == text and result.found == []


def test_user_patterns_and_invalid_ones() -> None:
    """Config patterns redact as `user`; an invalid regex still redacts its literal text."""
    result = redact("ticket ACME-1234 for bad[x", ["ACME-\\d+", "bad[x"])
    assert result.text == "ticket [REDACTED:user] for [REDACTED:user]"
    assert result.found == ["user"]


def test_big_text_is_handled_whole() -> None:
    """Megabytes of output are processed and a secret near the end is still found."""
    text = (
        "ok line with key=1 and path=/usr/lib\n" * 100_000
        + "TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnop\n"
    )
    result = redact(text)
    assert "ghp_" not in result.text and result.found == ["github-token"]


def test_a_token_used_as_url_userinfo_gets_one_clean_marker() -> None:
    """`https://ghp_…@github.com`: the token rule hides it; the URL rule leaves that marker be."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
    out = redact(f"git clone https://{token}@github.com/acme/app.git")
    assert out.text == "git clone https://[REDACTED:github-token]@github.com/acme/app.git"
    assert out.found == ["github-token"]
    both = redact(f"https://bot:{token}@github.com/x")
    assert token not in both.text and both.text.count("[REDACTED:") == 1


def test_a_query_token_is_hidden_and_the_parameters_after_it_stay() -> None:
    """`?access_token=…&page=2`: only the token goes; `&page=2` is context the model needs."""
    out = redact("GET https://api.example.com/items?access_token=f00dfeed0123456789abcdef&p=2 200")
    assert out.text == "GET https://api.example.com/items?access_token=[REDACTED:token]&p=2 200"
