"""Credential families that used to slip through: JWTs, Kubernetes Secrets, webhooks, named keys."""

from __future__ import annotations

import pytest
from termwise.agent.privacy.redact import redact

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZXJtd2lzZSIsImV4cCI6MTcwMDAwMDAwMH0"
    ".q8vK3mZr0Xc2Nw9Lp4Ty7Hs1Ud6Fa5Gb0Ie3Jk8Ol2Mn"
)
JWT_NONE = "eyJhbGciOiJub25lIn0.eyJ1c2VyIjoiYW5uIiwicm9sZSI6ImFkbWluIn0."


@pytest.mark.parametrize(
    "text",
    [
        f"jwt_token = {JWT}",
        f"JWT_TOKEN={JWT}",
        f'{{"id_token": "{JWT}", "expires_in": 3600}}',
        f"session:\n  jwt: {JWT}\n  ttl: 60",
        f"login ok, here is your token {JWT}",
        f"var sessionJwt string = `{JWT}`",
        f"curl -H 'X-Auth: {JWT}' https://api.example.org",
        f'{{"jwt":"{JWT.replace("/", chr(92) + "/")}"}}',
        f"token={JWT_NONE}",
    ],
)
def test_jwts_under_any_name_or_bare(text: str) -> None:
    """A JWT goes whatever it is called, in .env, JSON, YAML, code or prose; context stays."""
    result = redact(text)
    assert "eyJzdWIi" not in result.text and "eyJ1c2Vy" not in result.text
    assert "[REDACTED:" in result.text


SECRET_YAML = """apiVersion: v1
kind: Secret
metadata:
  name: db-credentials
  namespace: shop
type: Opaque
data:
  username: c2hvcA==
  password: UzNjcjN0LVBhc3N3MHJk
  tls.key: |
    LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcw
    QkFRRUZBQVNDQktjd2dnU2pBZ0VBQW9JQkFRQzd2YnFhakRoQSt3SGV1MEoxeFBIelJR
stringData:
  api_url: https://api.example.org/v2
  webhook-secret: plain text not base64 at all
"""


def test_kubernetes_secret_values_go_and_the_manifest_stays() -> None:
    """Every data/stringData value of a Secret is replaced, base64 or not; keys and metadata stay."""
    result = redact(SECRET_YAML)
    for value in ("c2hvcA==", "UzNjcjN0", "LS0tLS1CRUdJ", "QkFRRUZB", "https://api.example.org/v2"):
        assert value not in result.text
    assert "plain text not base64" not in result.text
    for kept in ("name: db-credentials", "namespace: shop", "username:", "tls.key: |", "api_url:"):
        assert kept in result.text
    assert "k8s-secret" in result.found


def test_kubernetes_secret_with_data_before_kind_and_tabs() -> None:
    """`data:` may come before `kind: Secret`, indented with tabs, values quoted."""
    text = (
        "apiVersion: v1\ndata:\n\tpassword: 'aHVudGVyMg=='\nkind: \"Secret\"\nmetadata:\n\tname: x"
    )
    result = redact(text)
    assert "aHVudGVyMg" not in result.text
    assert "\tpassword: '[REDACTED:k8s-secret]'" in result.text


def test_kubectl_json_secret() -> None:
    """`kubectl get secret -o json` output: the values of its data map are replaced."""
    text = (
        '{\n  "apiVersion": "v1",\n  "data": {\n    "token": "c2VjcmV0LXRva2Vu",\n'
        '    "ca.crt": "LS0tLS1CRUdJTg=="\n  },\n  "kind": "Secret"\n}'
    )
    result = redact(text)
    assert "c2VjcmV0" not in result.text and "LS0tLS1CRUdJTg" not in result.text
    assert '"kind": "Secret"' in result.text


@pytest.mark.parametrize(
    "text",
    [
        "kind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n  REGION: eu-west-1",
        "kind: ExternalSecret\nspec:\n  data:\n    - secretKey: api-key\n"
        "      remoteRef:\n        key: prod/api-key",
        "kind: Secret\ndata:\n  password: {{ .Values.password }}\n  token: ''",
    ],
)
def test_configmaps_external_secrets_and_templates_stay(text: str) -> None:
    """Only real Secret values go: ConfigMaps, ExternalSecret references and templates stay."""
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "TEAMS_HOOK=https://contoso.webhook.office.com/webhookb2/"
            "8c5e1f7a-2b3d-4c6e-9f0a-1b2c3d4e5f6a@7d9e0f1a-2b3c-4d5e-8f9a-0b1c2d3e4f5a/"
            "IncomingWebhook/5f4e3d2c1b0a99887766554433221100/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d",
            "5f4e3d2c1b0a99887766554433221100",
        ),
        (
            "POST https://prod-12.westeurope.logic.azure.com:443/workflows/3a2b1c0d9e8f/triggers/"
            "manual/paths/invoke?api-version=2016-06-01&sig=Zk9vQmFyQmF6UXV4MTIzNDU2Nzg5MA",
            "Zk9vQmFyQmF6UXV4MTIzNDU2Nzg5MA",
        ),
        (
            "url: https://chat.googleapis.com/v1/spaces/AAAAx1y2z3/messages?key=AIzaSyDdI0hCZtE6vySjMm"
            "-WEfRq3CPzqKqqsHI&token=pQ8vK3mZr0Xc2Nw9Lp4Ty7Hs1Ud6Fa5Gb0Ie3Jk8Ol2Mn%3D",
            "pQ8vK3mZr0Xc2Nw9Lp4Ty7Hs1Ud6Fa5Gb0Ie3Jk8",
        ),
        ("SRC_ACCESS_TOKEN=sgp_" + "9f8e7d6c5b4a3210" + "_" + "a1" * 20, "a1a1a1a1a1a1a1a1"),
        ("sourcegraph login sgp_local_" + "0f" * 20, "0f0f0f0f0f0f0f0f"),
    ],
)
def test_webhook_urls_and_developer_platform_tokens(text: str, secret: str) -> None:
    """Incoming-webhook URLs lose their credential path; Sourcegraph-style tokens go whole."""
    result = redact(text)
    assert secret not in result.text and "[REDACTED:" in result.text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            'cloudflare: "9f1c0b7e4d2a8c6e3b5f7a9d1e0c2b4a6f8d0"',
            "9f1c0b7e4d2a8c6e3b5f7a9d1e0c2b4a6f8d0",
        ),
        ("SUMO_ACCESS_ID=suQ7n2Lk9Xw4Tb", "suQ7n2Lk9Xw4Tb"),
        ('const HEROKU_KEY = "01234567-89ab-cdef-0123-456789abcdef"', "01234567-89ab-cdef"),
        (
            'props.put("artifactory", "k3n9x0q2w8e7r6t5y4u3i2o1p0a9s8d7f6g5h4j3k2l1")',
            "k3n9x0q2w8e7",
        ),
        ("export DATADOG_APP=8f2a9b3c4d5e6f708192a3b4c5d6e7f809a1b2c3", "8f2a9b3c4d5e6f70"),
    ],
)
def test_vendor_keys_known_only_from_the_name(text: str, secret: str) -> None:
    """A value stored under a service's name is a key when it looks generated (UUIDs too)."""
    result = redact(text)
    assert secret not in result.text and result.found == ["api-key"]


@pytest.mark.parametrize(
    "text",
    [
        "cloudflare_zone: example.org",
        "STRIPE_MODE=test",
        "datadog_site = datadoghq.eu",
        'clientId = "73082700-1f09-405b-80d0-3131bfd6272d"',
        'public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"',
        "csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15",
        "token_count = 4096\nSECRET_NAME=prod-db\nkeyId: 8a1f",
        'const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"',
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        'curl -u "$USER:$PASS" https://x\ncurl -u <user:password> https://y',
        "-e SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`",
    ],
)
def test_look_alikes_a_user_needs_survive(text: str) -> None:
    """Settings under a vendor name, ids, public keys, CSRF tokens and placeholders stay."""
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('var apiToken string = "p4Lk9Xw2Tb7Qn3Rs"', "p4Lk9Xw2Tb7Qn3Rs"),
        ('$apiToken .= "p4Lk9Xw2Tb7Qn3Rs"', "p4Lk9Xw2Tb7Qn3Rs"),
        ('API_TOKEN :::= "p4Lk9Xw2Tb7Qn3Rs"', "p4Lk9Xw2Tb7Qn3Rs"),
        ("<apiToken>\n    p4Lk9Xw2Tb7Qn3Rs\n</apiToken>", "p4Lk9Xw2Tb7Qn3Rs"),
        ('{"cfg": "API_TOKEN=p4Lk9Xw2Tb7Qn3Rs\\nDEBUG=true"}', "p4Lk9Xw2Tb7Qn3Rs"),
        ("db_password = Q;p<$aPg:2,Kvvr", "Q;p<$aPg:2,Kvvr"),
        ("curl -X POST https://h \\\n  -u deploy:yqDVtkqPECriaLRi", "yqDVtkqPECriaLRi"),
        ("curl --header 'Authorization: 5eb4223e-5008-46e5-be67-c7b8f2732305'", "5eb4223e-5008"),
        ("export BUNDLE_GEMS__CONTRIBSYS__COM=cafebabe:d3adb33f", "d3adb33f"),
    ],
)
def test_assignment_forms_of_many_languages(text: str, secret: str) -> None:
    """Go, PHP, Make, XML, escaped JSON, punctuation inside a password, curl, bundler config."""
    result = redact(text)
    assert secret not in result.text and "[REDACTED:" in result.text


def test_connection_string_keeps_the_fields_after_the_password() -> None:
    """`Password=…;` ends at the next `Name=`; the server and database stay readable."""
    text = "Server=db.internal;Database=shop;User Id=app;Password=Xy7!kLm9;Encrypt=true"
    result = redact(text)
    assert result.text == (
        "Server=db.internal;Database=shop;User Id=app;Password=[REDACTED:password];Encrypt=true"
    )


R = "Zx8K2mQ9vL4pR7tW1yB3nC6dF5gH8jK0"


@pytest.mark.parametrize(
    "text",
    [
        f"vault login {R}",
        f"redis-cli -h cache -a {R} ping",
        f"gh secret set DEPLOY_KEY --body {R}",
        f"sentry_dsn = https://{R}@o123.ingest.sentry.io/456",
        f"api_key: !!binary {R}",
        f"aws configure set aws_secret_access_key {R}",
        f"npm config set //registry.npmjs.org/:_authToken={R}",
        f"https://x-access-token:{R}@github.com/acme/app.git",
        f'$env:API_KEY = "{R}"',
        '{"body": "{\\"password\\": \\"' + R + '\\"}"}',
        f"echo {R} | docker login -u ann --password-stdin ghcr.io",
        f"zip -P {R} backup.zip notes.txt",
        f"7z a -p{R} backup.7z notes.txt",
        f"openssl enc -aes-256-cbc -k {R} -in notes.txt",
    ],
)
def test_command_line_and_url_forms(text: str) -> None:
    """Secrets given as CLI arguments, YAML-tagged values and URL user parts are removed."""
    assert R[:12] not in redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "STRIPE_API_VERSION=2024-06-20",
        "MAILGUN_DOMAIN=mg.example.com",
        "SENTRY_ENVIRONMENT=production",
        "token_type: Bearer\nexpires_in: 3600\npassword_min_length=12",
        "vault login -method=oidc",
        "OPENAI_MODEL=gpt-4o-mini\ntwilio_phone=+15551234567",
        "STRIPE_PRICE_ID=price_1NQxYz2eZvKYlo2C\nstripe_customer_id = cus_NffrFeUfNV2Hib",
        "cloudflare_zone_id=023e105f4ecef8ad9ca31a8372d0c353",
    ],
)
def test_settings_next_to_secrets_survive(text: str) -> None:
    """Versions, domains and lengths stored under a vendor or secret-ish name stay readable."""
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('<entry key="token">9f8e7d6c5b4a39281706f5e4d3c2b1a0</entry>', "9f8e7d6c5b4a"),
        (
            '<property name="hibernate.connection.password">Sup3rS3cret!</property>',
            "Sup3rS3cret!",
        ),
        (
            '<setting name="ApiSecret" serializeAs="String">\n  <value>q8vK3mZr0Xc2Nw9L</value>\n'
            "</setting>",
            "q8vK3mZr0Xc2Nw9L",
        ),
    ],
)
def test_xml_elements_named_as_secrets(text: str, secret: str) -> None:
    """An element whose key or name attribute names a secret loses its text, tags kept."""
    out = redact(text).text
    assert secret not in out and "[REDACTED:" in out
    assert out.startswith(text[: text.index(">") + 1])


@pytest.mark.parametrize(
    "text",
    [
        '<entry key="color">blue</entry>',
        '<property name="url">http://localhost:8080</property>',
        '<property name="password.min.length">12</property>',
    ],
)
def test_xml_elements_with_plain_settings_survive(text: str) -> None:
    assert redact(text).text == text
