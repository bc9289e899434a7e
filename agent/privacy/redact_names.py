"""Whether `name = value` holds a secret: judged from the variable name and the value's shape."""

from __future__ import annotations

import math
import re
from functools import lru_cache

# Services whose keys are often stored under a name that only says whose key it is
# (`cloudflare: "…"`, `SUMO_ACCESS_ID=…`, `"artifactory", "…"`). Lowercase; matched inside names.
VENDORS = (
    "adafruit adobe adyen airtable algolia alibaba aliyun anthropic artifactory asana atlassian "
    "authress azure beamer bintray bitbucket bittrex braintree castai chargebee circleci clickhouse "
    "clojars cloudflare codecov cohere coinbase confluence confluent contentful contribsys "
    "databricks datadog digitalocean discord dnkey doppler droneci dropbox duffel dynatrace "
    "easypost etsy facebook fastly finicity finnhub flickr flutterwave frameio freemius "
    "freshbooks gitter gocardless grafana hubspot heroku huggingface infracost intercom intra42 "
    "jfrog jira kraken kucoin launchdarkly linkedin linked_in looker mailchimp mailgun mapbox "
    "mattermost maxmind messagebird message_bird message-bird netlify newrelic new_relic "
    "new-relic nytimes okta openai pagerduty plaid planetscale postman privateai private_ai "
    "pulumi rapidapi sendbird sendgrid sendinblue sentry shippo shopify snyk sonar sourcegraph "
    "squarespace stripe sumo telegram travis twilio twitch twitter typeform yandex zendesk "
    "xray vercel supabase firebase mongodb pinecone replicate mistral groq perplexity"
).split()

# The key words that make a name secret-bearing by themselves.
_STRONG = re.compile(
    r"password|passwd|passphrase|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key"
    r"|(?<![a-z])pass(?![a-z])|(?<=[_.-])pwd(?![a-z])|^pwd$|(?<![a-z])creds?(?![a-z])"
    r"|credentials?|auth[_-]?key|signing[_-]?key|client[_-]?key|session[_-]?key",
    re.IGNORECASE,
)
_AWS_SECRET_NAME = re.compile(r"aws_?secret|secret_?access_?key", re.IGNORECASE)
# Name endings that describe a secret without holding it (`token_count`, `SECRET_NAME`, `keyId`).
_DESCRIBES = frozenset(
    "count len length size type types url uri urls endpoint endpoints file files path paths dir "
    "name names id ids limit max min expiry expires expiration expire ttl timeout header headers "
    "prefix suffix format kind version field fields label index idx mode policy provider "
    "providers scope scopes store usage used enabled required source env var variable ref arn "
    "hash algorithm algo bits location pattern regex rotation strategy template encoding "
    "position pos char chars separator delimiter sep class manager service generator parser "
    "validator handler callback fn func request response method endpoint_url "
    "location_uri storetype alias board code frame pair pressed press ring selector word up "
    "down left right vault".split()
)
# Whole names that look secret-bearing but are not (`csrf_token` is public in every HTML page).
_NOT_SECRET_NAME = re.compile(
    r"csrf|xsrf|jsonwebtoken|tokeniz|(?<![a-z])pub(?:lic)?[_.-]?(?:key|token)|publishable"
    r"|(?:primary|foreign|sort|partition|hash|range|bucket|sequence|schema|cache|idempotency)"
    r"[_.-]?key|keyboard|keyframe|keystroke|keyword|monkey|turkey|passenger|compass|bypass"
    r"|passthrough|author|secretary|next_?token|page_?token|continuation_?token|sync_?token",
    re.IGNORECASE,
)
# A value naming where a secret lives (`secretKey: api-key`, `passwordRef: db-password`).
_REFERENCE = re.compile(
    r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_.](?:key|token|secret|password|passwd|credentials?)"
    r"|(?:key|token|secret|password|credentials?)[-_.][a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*"
)
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def name_words(name: str) -> list[str]:
    """`SUMO_ACCESS_ID` → [sumo, access, id]; `UserSecretsId` → [user, secrets, id]."""
    return [w.lower() for w in _CAMEL.findall(name)]


@lru_cache(maxsize=1)
def vendor_pattern() -> re.Pattern[str]:
    """One regex for every vendor word, factored as a trie so each position is cheap."""
    return re.compile(r"(?i)" + _trie(sorted(set(VENDORS))))


def _trie(words: list[str]) -> str:
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _emit(tree)


def _emit(node: dict) -> str:  # type: ignore[type-arg]
    branches = [re.escape(ch) + _emit(child) for ch, child in sorted(node.items()) if ch]
    optional = "" in node
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if optional else body


def entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


# A character table (`ABCDEFGHIJ…`, `0123456789`) is a constant in code, not a secret.
_RUN_OF_ALPHABET = re.compile(r"abcdefgh|ABCDEFGH|01234567|qwertyui", re.IGNORECASE)
_RUNS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_CONSONANTS4 = re.compile(r"[bcdfghjklmnpqrstvwxz]{4}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _word_like(run: str) -> bool:
    low = run.lower()
    vowels = sum(ch in "aeiouy" for ch in low)
    return len(low) >= 3 and vowels * 5 >= len(low) and not _CONSONANTS4.search(low)


def wordy(value: str) -> bool:
    """Words and short numbers (`jetbrains.mps.v8_elimination`, `SalesResults-1.2`), not noise."""
    runs = _RUNS.findall(value)
    letters = sum(len(r) for r in runs if not r.isdigit())
    digits = sum(len(r) for r in runs if r.isdigit())
    if letters == 0 or digits * 3 > len(value) or any(len(r) > 6 for r in runs if r.isdigit()):
        return False
    in_words = sum(len(r) for r in runs if not r.isdigit() and _word_like(r))
    return in_words >= 0.75 * letters and len(runs) * 3 <= len(value) + 3


def looks_random(value: str, min_len: int = 16) -> bool:
    """High entropy and mixed characters: what generated secrets look like, unlike words."""
    if len(value) < min_len or " " in value or wordy(value) or _RUN_OF_ALPHABET.search(value):
        return False
    classes = sum(
        bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]")
    )
    return classes >= 2 and entropy(value) >= min(3.3, math.log2(len(value)) - 0.2)


def dummy(value: str) -> bool:
    """Filler a human typed in place of a secret: `xxxx…`, `XXXX…`, `****`, `0000…`."""
    core = re.sub(r"^[A-Za-z]{1,8}[_-]|[-_]", "", value)
    if len(core) >= 8 and len(set(core.lower())) <= 2:
        return True
    return bool(re.search(r"([xX*#.0])\1{7,}", value))


_NOT_SECRET_VALUE = re.compile(
    r"^(?:(?:sha1|sha256|sha384|sha512|md5)[:-].*|[0-9a-f]{40}"  # digests, git commit ids
    r"|(?:[A-Za-z0-9_.]+-)+[0-9a-f]{40,128})$"  # CI cache keys: words, then a content hash
)


def inside_marker(text: str, pos: int) -> bool:
    """True when `pos` falls inside a `[REDACTED:kind]` marker already written."""
    start = text.rfind("[REDACTED:", max(0, pos - 60), pos + 1)
    return start >= 0 and "]" not in text[start:pos]


def kind_for_name(name: str, value: str) -> str | None:
    """Which marker `name = value` gets, or None to leave it alone."""
    lower = name.lower().lstrip("-$@")
    if _AWS_SECRET_NAME.search(lower) and re.fullmatch(r"[A-Za-z0-9/+=]{40}", value):
        return "aws-secret-key"
    if _NOT_SECRET_NAME.search(lower):
        return None
    words = name_words(name)
    vendor = vendor_pattern().search(lower) is not None
    if words and words[-1] in _DESCRIBES and not (vendor and words[-1] in ("id", "ids")):
        return None  # `token_count`, `SECRET_NAME`; a vendor's `ACCESS_ID` is its key, though
    if dummy(value) or _REFERENCE.fullmatch(value):
        return None
    if _STRONG.search(lower):
        if len(value) < 4:
            return None  # `PuttyPassword=0`, `token: 1`: flags and counters, not secrets
        if "pass" in lower or "pwd" in lower:
            return "password"
        if "private" in lower and "key" in lower:
            return "private-key"
        if "token" in lower:
            return "token"
        if "key" in lower:
            return "api-key"
        return "secret"
    if vendor:
        return "api-key" if _credential_words(words) and vendor_value(value) else None
    # Weak names (key, salt, cookie, auth …) only with a value that looks generated;
    # ids and digests (cache keys, `sha256:…`, UUIDs) are not secrets.
    if _NOT_SECRET_VALUE.match(value) or _UUID.fullmatch(value):
        return None
    return "high-entropy" if looks_random(value) else None


_DIGEST = re.compile(r"(?:sha1|sha256|sha384|sha512|md5)[:-]")


# After a vendor's name, the words that make the name a credential's (`DATADOG_APP`,
# `SUMO_ACCESS_ID`, `MessageBirdClientID`); `OPENAI_MODEL`, `STRIPE_PRICE_ID` are settings.
_CREDENTIAL_WORDS = frozenset(
    "key keys secret token auth access pat sk app apikey appkey accesskey accessid clientid "
    "clientsecret pass pw pwd credential credentials cred creds license sid signing".split()
)
_ID_OWNERS = frozenset("access client app api key secret account service".split())


def _credential_words(words: list[str]) -> bool:
    """A vendor-named variable is a credential when it is only the vendor's name or ends in a
    credential word (`…_ID` only after access/client/app …)."""
    vendor_words = {w for w in words if vendor_pattern().fullmatch(w)}
    rest = [w for w in words if w not in vendor_words]
    if not rest:
        return True
    last = rest[-1]
    if last in ("id", "ids"):
        return len(rest) >= 2 and rest[-2] in _ID_OWNERS
    return last in _CREDENTIAL_WORDS


def vendor_value(value: str) -> bool:
    """A value stored under a service's name that looks like a credential, not a setting."""
    if _UUID.fullmatch(value):
        return True  # Heroku, HubSpot, Snyk … keys are UUIDs
    if len(value) < 10 or " " in value or wordy(value) or _DIGEST.match(value):
        return False
    if re.fullmatch(r"https?://.*|[\w.-]+\.(?:com|org|net|io)(?:/.*)?", value):
        return False
    return bool(re.search(r"\d", value)) or looks_random(value, 10)
