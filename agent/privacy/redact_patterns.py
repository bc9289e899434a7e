"""Shapes of known secret tokens and secret-bearing syntax, as (kind, regex, cheap needles)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class TokenRule:
    """One secret shape. A named group `s` marks the secret part; otherwise the whole match."""

    kind: str
    pattern: str
    needs: tuple[str, ...] = ()  # one of these substrings must occur (skip the pass otherwise)
    flags: int = 0


_B64 = r"[A-Za-z0-9+/]"
# A secret given as a command's argument: quoted, or one word not starting with `-`.
_SECRET_WORD = r"(?P<s>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'-]\S*)"
_I = re.IGNORECASE

# Order matters: (key blocks first, in redact_pem.py) whole structures, then token shapes,
# then contextual ones. Line scans are bounded ({0,300}) so one long line stays linear.
RULES: list[TokenRule] = [
    # PuTTY .ppk: the base64 lines under `Private-Lines: N`.
    TokenRule(
        "private-key",
        r"Private-Lines:[ \t]*\d+[ \t]*\r?\n(?P<s>[A-Za-z0-9+/=]{4,}(?:[ \t]*\r?\n[A-Za-z0-9+/=]{4,})*)",
        ("Private-Lines:",),
    ),
    TokenRule("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", ("AGE-SECRET-KEY-",)),
    # kubeconfig: the client's private key, base64 of a PEM block.
    TokenRule(
        "private-key",
        r"\bclient-key-data[\"']?[ \t]*[:=][ \t]*[\"']?(?P<s>[A-Za-z0-9+/=]{16,})",
        ("client-key-data",),
    ),
    TokenRule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
        ("hooks.slack.com",),
    ),
    TokenRule(
        "discord-webhook",
        r"https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
        ("/api/webhooks/",),
    ),
    # JWT / JWS: base64url header and claims (both start with `ey`, `{"`), signature optional
    # (alg none). Escaped slashes (`\/`) occur in JSON dumps.
    TokenRule(
        "jwt",
        r"(?<![A-Za-z0-9_-])ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_/\\-]{10,}\.(?:[A-Za-z0-9_/\\+-]{8,}={0,2})?",
        ("ey",),
    ),
    # A JWT base64-encoded once more (`ZXlK` is base64 of `eyJ`).
    TokenRule("jwt", r"(?<![A-Za-z0-9+/])ZXlK[A-Za-z0-9+/_-]{40,}={0,2}", ("ZXlK",)),
    TokenRule("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    TokenRule("openai-key", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}", ("sk-",)),
    TokenRule("deepseek-key", r"\bsk-[a-f0-9]{32}\b", ("sk-",)),
    TokenRule("openai-key", r"\bsk-[A-Za-z0-9]{20,}\b", ("sk-",)),
    TokenRule(
        "stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}\b", ("k_live_", "k_test_")
    ),
    TokenRule("stripe-key", r"\bwhsec_[A-Za-z0-9+/=]{24,}", ("whsec_",)),
    TokenRule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35,}", ("AIza",)),  # longer runs go whole
    TokenRule("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{20,}", ("GOCSPX-",)),
    TokenRule("google-oauth-token", r"(?<![\w/])1//0[A-Za-z0-9_-]{30,}", ("1//0",)),
    TokenRule("google-oauth-token", r"\bya29\.[A-Za-z0-9_-]{20,}", ("ya29.",)),
    TokenRule(
        "github-token",
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b",
        ("hp_", "ho_", "hu_", "hs_", "hr_"),
    ),
    TokenRule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,}", ("github_pat_",)),
    TokenRule(
        "gitlab-token",
        r"\bgl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{9})?",
        ("gl",),
    ),
    TokenRule("slack-token", r"\bxox[abepr]-[A-Za-z0-9-]{10,}", ("xox",)),
    TokenRule("slack-token", r"\bxox[os]-\d+-\d+-\d+-[A-Fa-f0-9]+", ("xoxo-", "xoxs-")),
    TokenRule("slack-token", r"\bxoxe\.xox[bp]-\d-[A-Za-z0-9]{100,}", ("xoxe.",)),
    TokenRule("slack-token", r"\bxapp-\d-[A-Za-z0-9-]{10,}", ("xapp-",)),
    TokenRule(
        "aws-access-key-id",
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    TokenRule("twilio-key", r"\bSK[0-9a-f]{32}\b", ("SK",)),
    TokenRule("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}", ("SG.",)),
    TokenRule("mailgun-key", r"\bkey-[0-9a-z]{32}\b", ("key-",)),
    TokenRule("mailchimp-key", r"\b[0-9a-f]{32}-us\d{1,2}\b", ("-us",)),
    TokenRule("artifactory-token", r"\bAKCp[A-Za-z0-9]{60,}\b", ("AKCp",)),
    TokenRule("artifactory-token", r"\bcmVmdGtuOjAxOj[A-Za-z0-9]{40,}", ("cmVmdGtu",)),
    TokenRule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    TokenRule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ("pypi-AgE",)),
    TokenRule("huggingface-token", r"\bhf_[A-Za-z0-9]{34}(?![A-Za-z0-9])", ("hf_",)),
    TokenRule("huggingface-token", r"\bapi_org_[A-Za-z]{34}\b", ("api_org_",)),
    # Model providers and AI tooling with prefixed keys.
    TokenRule("openrouter-key", r"\bsk-or-v1-[a-f0-9]{64}\b", ("sk-or-",)),
    TokenRule("groq-key", r"\bgsk_[A-Za-z0-9]{48,}\b", ("gsk_",)),
    TokenRule("xai-key", r"\bxai-[A-Za-z0-9]{60,}\b", ("xai-",)),
    TokenRule("perplexity-key", r"\bpplx-[A-Za-z0-9]{40,}\b", ("pplx-",)),
    TokenRule("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    TokenRule("langsmith-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ("lsv2_",)),
    TokenRule("tavily-key", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32}\b", ("tvly-",)),
    TokenRule("pinecone-key", r"\bpcsk_[A-Za-z0-9]{5,}_[A-Za-z0-9]{40,}\b", ("pcsk_",)),
    # Developer platforms with prefixed tokens.
    TokenRule(
        "sourcegraph-token",
        r"\bsgp_(?:[A-Fa-f0-9]{16}_|local_)?[A-Fa-f0-9]{40}\b",
        ("sgp_",),
    ),
    TokenRule("easypost-key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", ("EZAK", "EZTK")),
    TokenRule("facebook-token", r"\bEAA[A-Za-z0-9]{100,}", ("EAA",)),
    # Facebook app access token: `<app id>|<secret>` (or `%7C` when URL-encoded).
    TokenRule(
        "facebook-token", r"\b\d{15,16}(?:\||%7C)(?P<s>[A-Za-z0-9_-]{27,40})\b", ("|", "%7C")
    ),
    TokenRule(
        "openshift-token", r"\bsha256~(?P<s>[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])", ("sha256~",)
    ),
    TokenRule("intra42-secret", r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b", ("s-s4t2",)),
    TokenRule(
        "azure-integration-runtime-key",
        r"\bIR@[0-9A-Za-z-]{36}@[^@\s]{1,90}@[0-9A-Za-z=-]{0,40}@(?P<s>[A-Za-z0-9+/=]{44})",
        ("IR@",),
    ),
    TokenRule(
        "session-url", r"(?i)\bclaude\.ai/code/session_(?P<s>[A-Za-z0-9]{16,})", ("ession_",)
    ),
    TokenRule("castai-key", r"\bcastai_v1_[A-Za-z0-9]{64}_[A-Za-z0-9]{8}\b", ("castai_v1_",)),
    TokenRule("clickhouse-key", r"\b4b1d[A-Za-z0-9]{38}\b", ("4b1d",)),
    TokenRule("chieftools-token", r"\bct[por]_[A-Za-z0-9]{30,248}\b", ("ctp_", "cto_", "ctr_")),
    TokenRule("settlemint-token", r"\bsm_(?:pat|aat|sat)_[A-Za-z0-9]{12,}\b", ("sm_",)),
    TokenRule("maxmind-key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", ("_mmk",)),
    TokenRule(
        "authress-key",
        r"\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
        (".acc",),
    ),
    TokenRule("adyen-key", r"\bAQE[A-Za-z0-9]{5,}\.[A-Za-z0-9_=-]{50,80}", ("AQE",)),
    TokenRule(
        "braintree-token",
        r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}(?:\$[a-f0-9]{32})?\b",
        ("access_token$",),
    ),
    TokenRule("duffel-token", r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}", ("duffel_",)),
    TokenRule("frameio-token", r"\bfio-u-[A-Za-z0-9_=-]{64}", ("fio-u-",)),
    TokenRule("flutterwave-key", r"\bFLW(?:PUB|SEC)K_TEST-[A-Za-z0-9]{12,32}(?:-X)?", ("FLW",)),
    TokenRule(
        "flyio-token",
        r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})",
        ("fo1_", "fm1", "fm2_"),
    ),
    TokenRule("infracost-key", r"(?<![\w.])ico-[A-Za-z0-9]{32}\b", ("ico-",)),
    TokenRule("prefect-key", r"\bpnu_[A-Za-z0-9]{36}\b", ("pnu_",)),
    TokenRule("readme-key", r"\brdme_[a-z0-9]{70}\b", ("rdme_",)),
    TokenRule("scalingo-token", r"\btk-us-[A-Za-z0-9_-]{48}", ("tk-us-",)),
    TokenRule("sendinblue-key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", ("xkeysib-",)),
    TokenRule("shippo-token", r"\bshippo_(?:live|test)_[a-f0-9]{40}\b", ("shippo_",)),
    TokenRule("typeform-token", r"\btfp_[A-Za-z0-9_=.-]{59}", ("tfp_",)),
    TokenRule("gitlab-token", r"\bGR1348941[A-Za-z0-9_-]{20}", ("GR1348941",)),
    TokenRule("gitlab-token", r"\b_gitlab_session=[0-9a-z]{32}\b", ("_gitlab_session",)),
    TokenRule("octopus-key", r"\bAPI-[A-Z0-9]{26}\b", ("API-",)),
    TokenRule("cloudflare-key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b", ("v1.0-",)),
    TokenRule("dropbox-token", r"\bsl\.[A-Za-z0-9_=-]{130,}", ("sl.",)),
    TokenRule(
        "yandex-key",
        r"\b(?:YC[A-Za-z0-9_-]{38}|AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2})(?![A-Za-z0-9_-])",
        ("YC", "AQVN", "t1."),
    ),
    TokenRule("vault-token", r"\bs\.(?=[A-Za-z]*\d)[A-Za-z0-9]{24}\b", ("s.",)),
    TokenRule("django-secret", r"\bdjango-insecure-[^\s\"'`]{8,250}", ("django-insecure-",)),
    # Microsoft Teams and other incoming-webhook URLs: the path after the host is the credential.
    TokenRule(
        "webhook-url",
        r"(?i)https://[a-z0-9.-]*webhook\.office\.com/webhook(?:b2)?/(?P<s>[^\s\"'<>]{20,})",
        ("webhook.office.com",),
    ),
    TokenRule(
        "webhook-url",
        r"(?i)https://[a-z0-9.-]+\.logic\.azure\.com[:0-9]*/workflows/(?P<s>[^\s\"'<>]{20,})",
        ("logic.azure.com",),
    ),
    TokenRule(
        "webhook-url",
        r"(?i)https://chat\.googleapis\.com/v1/spaces/(?P<s>[^\s\"'<>]{20,})",
        ("chat.googleapis.com",),
    ),
    TokenRule(
        "webhook-url",
        r"(?i)https://hooks\.zapier\.com/hooks/catch/(?P<s>[^\s\"'<>]{8,})",
        ("hooks.zapier.com",),
    ),
    TokenRule(
        "webhook-url",
        r"(?i)https?://[^\s/\"'<>]+/hooks/(?P<s>[a-z0-9]{26})\b",
        ("/hooks/",),
    ),
    TokenRule(
        "webhook-url",
        r"(?i)https://(?:events\.pagerduty\.com/integration/|outlook\.office\.com/webhook/)"
        r"(?P<s>[^\s\"'<>/]{20,})",
        ("pagerduty.com", "outlook.office.com"),
    ),
    # Bundler credentials for private gem hosts: BUNDLE_<HOST>=user:password.
    TokenRule(
        "password",
        r"\bBUNDLE_[A-Z0-9_]{0,100}?__[A-Z]{2,10}[\"']?[ \t]*[:=][ \t]*[\"']?[^\s:\"'=]{1,200}:(?P<s>[^\s\"';&]+)",
        ("BUNDLE_",),
    ),
    # DER private keys in base64 without PEM armour: PKCS#1 RSA (version 0, then the modulus)
    # and PKCS#8. Certificates and public keys (SubjectPublicKeyInfo) start differently.
    TokenRule(
        "private-key",
        r"(?<![A-Za-z0-9+/])MII[A-Za-z0-9+/]{1,3}(?:IBAAJ|IBAAK|CAQEA|IBADANBgkqhkiG9w0BAQEFAASC)[A-Za-z0-9+/]{60,}={0,2}",
        ("MII",),
    ),
    TokenRule("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}", ("dckr_",)),
    TokenRule("grafana-token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b", ("glsa_",)),
    TokenRule("grafana-token", r"\bglc_[A-Za-z0-9+/]{32,}={0,2}", ("glc_",)),
    TokenRule("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("PMAK-",)),
    TokenRule("pulumi-token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    TokenRule(
        "terraform-token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", (".atlasv1.",)
    ),
    TokenRule("sentry-token", r"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}", ("sntry",)),
    TokenRule("newrelic-key", r"\bNR(?:AK|II|JS)-[A-Za-z0-9]{19,}\b", ("NRAK-", "NRII-", "NRJS-")),
    TokenRule("dynatrace-token", r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b", ("dt0c01.",)),
    TokenRule("flyio-token", r"\bFlyV1 fm\d_[A-Za-z0-9+/=_,-]{40,}", ("FlyV1 ",)),
    TokenRule("supabase-token", r"\bsbp_[a-f0-9]{40}\b", ("sbp_",)),
    TokenRule("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}", ("pscale_",)),
    TokenRule("netlify-token", r"\bnfp_[A-Za-z0-9]{36}\b", ("nfp_",)),
    TokenRule("rubygems-key", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",)),
    TokenRule("nuget-key", r"\boy2[a-z0-9]{43}\b", ("oy2",)),
    TokenRule("contentful-token", r"\bCFPAT-[A-Za-z0-9_-]{43}\b", ("CFPAT-",)),
    TokenRule("buildkite-token", r"\bbkua_[a-f0-9]{40}\b", ("bkua_",)),
    TokenRule("mapbox-token", r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", ("sk.eyJ",)),
    TokenRule("facebook-token", r"\bEAA[MC][A-Za-z0-9]{20,}", ("EAA",)),
    TokenRule("twitter-bearer-token", r"\bA{20,22}[A-Za-z0-9%]{80,110}", ("A" * 20,)),
    TokenRule("dynatrace-token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64,}", ("dt0c01.",)),
    TokenRule("square-token", r"\bsq0(?:csp|atp)-[A-Za-z0-9_-]{22,60}\b", ("sq0",)),
    TokenRule("alibaba-key", r"\bLTAI[A-Za-z0-9]{20}\b", ("LTAI",)),
    TokenRule("airtable-token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", ("pat",)),
    TokenRule("adobe-secret", r"\bp8e-[A-Za-z0-9]{32}\b", ("p8e-",)),
    TokenRule("1password-token", r"\bops_eyJ[A-Za-z0-9+/]{100,}={0,3}", ("ops_eyJ",)),
    TokenRule(
        "1password-secret-key",
        r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
        ("A3-",),
    ),
    TokenRule(
        "azure-client-secret",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        ("Q~",),
    ),
    TokenRule(
        "azure-storage-key",
        r"\b(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        ("AccountKey=", "SharedAccessKey="),
        _I,
    ),
    # SAS tokens: the signature parameter of a signed Azure URL or connection string.
    TokenRule("azure-sas", r"(?<=[?&;])sig=(?P<s>[A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})", ("sig=",)),
    TokenRule(
        "telegram-bot-token",
        r"(?:(?<=bot)|(?<![A-Za-z0-9]))\d{6,12}:A[A-Za-z0-9_-]{33,34}\b",
        (":A",),
    ),
    TokenRule(
        "discord-token",
        r"\b(?=[MNO][A-Za-z0-9]{0,26}\d)[MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}\b",
        (".",),
    ),
    TokenRule("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ("shp",)),
    TokenRule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("_v1_",)),
    TokenRule("heroku-key", r"\bHRKU-[A-Za-z0-9_-]{30,}", ("HRKU-",)),
    TokenRule("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}", ("dp.",)),
    TokenRule("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.", "hvr.")),
    TokenRule("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    TokenRule("atlassian-token", r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{50,}", ("ATATT3", "ATCTT3")),
    TokenRule("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}\b", ("lin_",)),
    TokenRule("notion-token", r"\bsecret_[A-Za-z0-9]{43}\b", ("secret_",)),
    TokenRule("notion-token", r"\bntn_[0-9]{11}[A-Za-z0-9]{32,}\b", ("ntn_",)),
    # Authorization headers in curl commands, HTTP dumps and config (Bearer handled apart).
    TokenRule(
        "basic-auth",
        rf"\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?basic[ \t]+(?P<s>{_B64}{{6,}}={{0,2}})",
        ("uthorization",),
        _I,
    ),
    TokenRule(
        "token",
        r"\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:token|api-?token|api-?key|digest|negotiate|apikey|sso-key|key)"
        r"[ \t]+(?P<s>[^\s\"',]{8,})",
        ("uthorization",),
        _I,
    ),
    # Session cookies sign a user in as well as a password: a `Cookie:` / `Set-Cookie:` header's
    # value, and curl's `-b` / `--cookie` argument.
    TokenRule(
        "cookie",
        r"(?:^|[\s\"'])(?:set-)?cookie[\"']?[ \t]*:[ \t]*(?P<s>[^\s\"';=]{1,100}=[^\r\n\"']{6,400})",
        ("ookie",),
        _I,
    ),
    TokenRule(
        "cookie",
        r"\bcurl\b[^\n]{0,300}?[ \t](?:-b|--cookie)[ \t]+(?P<s>\"[^\"\n]*=[^\"\n]*\"|'[^'\n]*=[^'\n]*'|[^\s\"']*=\S*)",
        ("curl",),
    ),
    # mysql/mysqldump/mysqladmin/mariadb `-pSECRET` (attached; a bare -p prompts).
    TokenRule(
        "password",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,300}?[ \t]-p"
        + _SECRET_WORD,
        ("mysql", "mariadb"),
    ),
    # `docker login -p SECRET`, `az login -p SECRET`, `sshpass -p SECRET`, MongoDB's tools
    # (`mongosh -p SECRET`): space separated.
    TokenRule(
        "password",
        r"\b(?:(?:docker|podman|buildah|skopeo|oras|az|helm[ \t]+registry)[ \t]+login|sshpass"
        r"|mongo(?:sh|dump|restore|export|import|stat|top|files)?)\b"
        r"[^\n]{0,300}?[ \t](?:-p|--password)(?:[ \t]+|=)" + _SECRET_WORD,
        ("login", "sshpass", "mongo"),
    ),
    # CLIs that take a secret as an argument: `vault login TOKEN`, `redis-cli -a PASS`,
    # `gh secret set NAME --body VALUE`.
    TokenRule(
        "token",
        r"\bvault[ \t]+login[ \t]+(?:-[\w-]+(?:=\S*)?[ \t]+){0,6}(?P<s>[^\s\"'=-][^\s\"'=]{7,})(?=\s|$)",
        ("vault",),
    ),
    TokenRule(
        "password",
        r"\bredis-cli\b[^\n]{0,300}?[ \t](?:-a|--pass|--askpass)[ \t]+(?P<s>[^\s\"'-]\S*)",
        ("redis-cli",),
    ),
    TokenRule(
        "secret",
        r"\bgh[ \t]+secret[ \t]+set\b[^\n]{0,200}?[ \t](?:-b|--body)[ \t=]+"
        r"(?P<s>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'-]\S*)",
        ("secret set",),
    ),
    # `echo SECRET | docker login --password-stdin` (and other tools reading a secret on stdin).
    TokenRule(
        "password",
        r"\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?(?P<s>\"[^\"\n]{4,}\"|'[^'\n]{4,}'|[^\s$|][^\s|]{3,})"
        r"[ \t]*\|[^\n]{0,200}?--password-stdin",
        ("password-stdin",),
    ),
    # Archive and cipher passwords: `zip -P`, `unzip -P`, `7z -pSECRET`, `openssl … -k SECRET`.
    TokenRule(
        "password",
        r"\b(?:zip|unzip|zipcloak)\b[^\n]{0,200}?[ \t](?:-P|--password)[ \t]+(?P<s>[^\s-]\S*)",
        ("zip",),
    ),
    TokenRule("password", r"\b7za?\b[^\n]{0,200}?[ \t]-p(?P<s>[^\s-]\S*)", ("7z",)),
    TokenRule(
        "password",
        r"\bopenssl\b[^\n]{0,300}?[ \t]-k[ \t]+(?P<s>[^\s-]\S*)",
        ("openssl",),
    ),
    # A token as the whole user part of a URL: `https://<token>@host` (Sentry DSNs, git remotes).
    TokenRule(
        "url-token",
        r"://(?P<s>(?=[^@\s/:]*\d)[A-Za-z0-9_.~%-]{20,})@[\w.-]+",
        ("://",),
    ),
    # GitHub Actions masks: the value after ::add-mask:: is by definition a secret.
    TokenRule("secret", r"::add-mask::(?P<s>[^\s\"']+)", ("::add-mask::",)),
    # PowerShell plain-text secure strings.
    TokenRule(
        "password",
        r"\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?(?P<s>\"[^\"\n]*\"|'[^'\n]*')",
        ("ConvertTo-SecureString", "convertto-securestring"),
        _I,
    ),
    # `net use \\srv\share /user:dom\me PASSWORD` (`*` prompts).
    TokenRule(
        "password",
        r"\bnet[ \t]+use\b[^\n]{0,300}?/user:\S+[ \t]+(?P<s>[^\s/*]\S*)",
        ("net use", "NET USE"),
        _I,
    ),
    # `net user NAME PASSWORD` sets a Windows account's password (`*` prompts, `/…` are flags).
    TokenRule(
        "password",
        r"\bnet(?:\.exe)?[ \t]+user[ \t]+(?:\"[^\"\n]+\"|[^\s/\"]+)[ \t]+"
        r"(?P<s>\"[^\"\n]+\"|[^\s/*\"]\S*)",
        ("net", "NET", "Net"),
        _I,
    ),
    # SQL Server's sqlcmd/bcp/osql `-P SECRET` (capital P; `-p` prints statistics), and
    # Samba's `-U user%SECRET`.
    TokenRule(
        "password",
        r"\b(?:sqlcmd|bcp|osql|isql)\b[^\n]{0,300}?[ \t]-P[ \t]*" + _SECRET_WORD,
        ("sqlcmd", "bcp", "osql", "isql"),
    ),
    TokenRule(
        "password",
        r"\b(?:smbclient|rpcclient|smbcacls|smbget|smbmap|net[ \t]+rpc)\b[^\n]{0,300}?[ \t]"
        r"(?:-U[ \t]*|--user(?:name)?[ \t=])[\"']?[^\s%\"']+%(?P<s>[^\s\"']+)",
        ("smb", "rpc"),
    ),
    # openssl `-passin pass:SECRET`, keytool `-storepass SECRET`, htpasswd -b FILE USER SECRET.
    TokenRule("password", r"\bpass:(?P<s>[^\s\"']+)", ("pass:",)),
    TokenRule(
        "password",
        r"(?<![\w-])-(?:src|dest|new)?(?:store|key)pass[ \t]+(?P<s>[^\s\"'-]\S*)",
        ("pass ",),
    ),
    TokenRule(
        "password",
        r"\bhtpasswd[ \t]+-\w*b\w*[ \t]+(?:-\w+[ \t]+)*\S+[ \t]+\S+[ \t]+(?P<s>\S+)",
        ("htpasswd",),
    ),
    # .netrc: `machine h login u password p`, on one line or over several.
    TokenRule(
        "password",
        r"\blogin[ \t]+\S+\s+password[ \t]+(?P<s>\S+)",
        ("login",),
    ),
    # Docker config.json `"auth": "<base64 user:password>"`.
    TokenRule(
        "docker-auth",
        rf"\"auth\"[ \t]*:[ \t]*\"(?P<s>{_B64}{{8,}}={{0,2}})\"",
        ('"auth"',),
    ),
    # .npmrc `_auth=<base64 user:password>` (`_authToken=` is caught as a token assignment).
    TokenRule("basic-auth", r"(?<![A-Za-z0-9])_auth[ \t]*=[ \t]*(?P<s>[^\s\"']{8,})", ("_auth",)),
]


# (kind, compiled pattern) in order; for each needle the indexes of the rules that need it;
# the indexes of rules that run always.
Compiled = tuple[list[tuple[str, re.Pattern[str]]], dict[str, tuple[int, ...]], tuple[int, ...]]
_compiled: Compiled | None = None
_LEADING_LITERAL = re.compile(r"^\\b((?:[A-Za-z0-9_-]|\\\.)+)")


def fast_form(pattern: str) -> str:
    """`\\bghp_…` → `ghp_(?<=\\bghp_)…`: same matches, but the regex engine can jump to the
    literal prefix instead of trying the word boundary at every position (about 8x faster)."""
    m = _LEADING_LITERAL.match(pattern)
    if not m:
        return pattern
    prefix = m.group(1)
    rest = pattern[m.end() :]
    if rest[:1] in ("{", "?", "*", "+"):  # a quantifier binds to the last literal character
        prefix, rest = prefix[:-1], prefix[-1] + rest
        if prefix.endswith("\\"):
            prefix, rest = prefix[:-1], "\\" + rest
    if len(prefix.replace("\\", "")) < 2:
        return pattern
    return f"{prefix}(?<=\\b{prefix}){rest}"


def compiled_rules() -> Compiled:
    """The rules compiled once, on first use (nothing compiles at import time), indexed by the
    needles that must occur for each to run."""
    global _compiled
    if _compiled is None:
        rules = [(r.kind, re.compile(fast_form(r.pattern), r.flags)) for r in RULES]
        by_needle: dict[str, list[int]] = {}
        for i, r in enumerate(RULES):
            for n in r.needs:
                by_needle.setdefault(n, []).append(i)
        always = tuple(i for i, r in enumerate(RULES) if not r.needs)
        _compiled = (rules, {n: tuple(v) for n, v in by_needle.items()}, always)
    return _compiled
