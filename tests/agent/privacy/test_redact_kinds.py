"""Secret redaction of provider tokens and secret-bearing syntax; look-alikes survive."""

from __future__ import annotations

import time

import pytest
from termwise.agent.privacy.redact import redact

A36 = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # 36 mixed characters
HEX32 = "0123456789abcdef0123456789abcdef"
HEX64 = HEX32 * 2
B64_86 = "Zm9vYmFyYmF6cXV4" * 5 + "Zm9vYm"  # 86 base64 characters

# (text containing a secret, the secret itself, the kind reported)
CASES = [
    ("STRIPE=sk_live_51HxAbCdEfGhIjKlMnOpQrSt", "sk_live_51HxAbCdEfGhIjKlMnOpQrSt", "stripe-key"),
    (
        "restricted rk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "stripe-key",
    ),
    (
        "webhook whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "stripe-key",
    ),
    ("twilio SK" + HEX32, "SK" + HEX32, "twilio-key"),
    (
        "SENDGRID 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",
        "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
        "sendgrid-key",
    ),
    (
        "mailgun key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
        "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
        "mailgun-key",
    ),
    ("//registry.npmjs.org/ npm_" + A36, "npm_" + A36, "npm-token"),
    (
        "password = pypi-AgEIcHlwaS5vcmcCJDU3OTM1MjliLTU2NDEtNGVlMy05MjQxLWQ0OTQxN2RiM2JmZAAC",
        "pypi-AgEIcHlwaS5vcmcCJDU3OTM1MjliLTU2NDEtNGVlMy05MjQxLWQ0OTQxN2RiM2JmZAAC",
        "pypi-token",
    ),
    (
        "huggingface-cli login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        "hf_AbCdEfGhIjKlMn",
        "huggingface-token",
    ),
    (
        "x-api-key: sk-ant-api03-Zx9_Yw8-Vu7TsR6qP5oN4mL3kJ2iH1gF0eD",
        "sk-ant-api03-Zx9_Yw8-Vu7TsR6qP5oN4mL3kJ2iH1gF0eD",
        "anthropic-key",
    ),
    (
        "sk-svcacct-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "sk-svcacct-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "openai-key",
    ),
    (
        '"client_secret":"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"',
        "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",
        "google-oauth-secret",
    ),
    (
        "refresh 1//0gAbCdEfGhIjKlMnOpQrStUvWxYz-0123456789_abcdef",
        "1//0gAbCdEfGhIjKlMnOpQrStUvWxYz",
        "google-oauth-token",
    ),
    (
        "access ya29.a0AfH6SMBx1y2z3AbCdEfGhIjKlMn",
        "ya29.a0AfH6SMBx1y2z3AbCdEfGhIjKlMn",
        "google-oauth-token",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        + B64_86
        + "==;EndpointSuffix=core.windows.net",
        B64_86,
        "azure-storage-key",
    ),
    (
        "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2025-01-01&sig=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789%2B%3D",
        "AbCdEfGhIjKlMnOpQrSt",
        "azure-sas",
    ),
    (
        "AZURE_CLIENT_SECRET: abc8Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456",
        "abc8Q~AbCdEf",
        "azure-client-secret",
    ),
    (
        "bot 1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
        "1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
        "telegram-bot-token",
    ),
    (
        "DISCORD MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        "ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        "discord-token",
    ),
    (
        "https://discord.com/api/webhooks/123456789012345678/AbCdEf-GhIjKl_MnOpQr",
        "AbCdEf-GhIjKl_MnOpQr",
        "discord-webhook",
    ),
    ("Cookie: sessionid=9f8e7d6c5b4a3f2e1d0c; csrftoken=abc", "9f8e7d6c5b4a", "cookie"),
    ("< set-cookie: __Host-auth=eyJ0eXAi.Zm9vYmFy; Path=/; HttpOnly", "eyJ0eXAi", "cookie"),
    ("curl -b 'session=0a1b2c3d4e5f6a7b' https://app.example.com/me", "0a1b2c3d4e5f", "cookie"),
    ('curl -H "Cookie: sid=s%3A9fKq7xZ2.mN" https://x', "9fKq7xZ2", "cookie"),
    ("shpat_" + HEX32, "shpat_" + HEX32, "shopify-token"),
    ("doctl auth init -t dop_v1_" + HEX64, "dop_v1_" + HEX64, "digitalocean-token"),
    ("HRKU-AAbCdEfGhIjKlMnOpQrStUvWxYz0123456789_abcdef", "HRKU-AAbCdEf", "heroku-key"),
    (
        "DOPPLER_TOKEN dp.pt.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
        "dp.pt.AbCdEf",
        "doppler-token",
    ),
    ("VAULT hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWxYz0123", "hvs.CAESIAbCdEf", "vault-token"),
    ("databricks dapi" + HEX32, "dapi" + HEX32, "databricks-token"),
    ("jira ATATT3xFfGF0" + A36 + A36, "ATATT3xFfGF0", "atlassian-token"),
    ("LINEAR lin_api_" + A36 + "abcd", "lin_api_" + A36, "linear-key"),
    ("notion secret_" + A36 + "AbCdEfG", "secret_" + A36, "notion-token"),
    ("notion ntn_12345678901" + A36, "ntn_12345678901" + A36, "notion-token"),
    (
        "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE",
        "AGE-SECRET-KEY-1QPZRY9X8GF2",
        "age-secret-key",
    ),
    ("xapp-1-A0123456789-0123456789012-abcdef0123", "xapp-1-A0123456789", "slack-token"),
    ("glrt-AbCdEfGhIjKlMnOpQrStUv", "glrt-AbCdEfGhIjKlMnOpQrStUv", "gitlab-token"),
    (
        "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' https://x",
        "dXNlcjpwYXNzd29yZA",
        "basic-auth",
    ),
    ("Authorization: token 0123456789abcdef01234567", "0123456789abcdef01234567", "token"),
    ("curl -u admin:S3cretPw https://api.example.com", "S3cretPw", "password"),
    ("curl --user 'deploy:p4ss word' https://x", "p4ss", "password"),
    ("mysql -h db -u root -pTopSecret42 shop", "TopSecret42", "password"),
    ("mysqldump -uroot -p'quoted pw' db", "quoted pw", "password"),
    ("machine api.heroku.com\n  login me@example.com\n  password hunter2x", "hunter2x", "password"),
    ("machine example.org login bob password plain1", "plain1", "password"),
    ("redis://:R3disPass@cache:6379/0", "R3disPass", "url-password"),
    ("mongodb+srv://app:p@ss@cluster0.abcd.mongodb.net/db", "p@ss", "url-password"),
    ("amqp://guest:guestpw@rabbit:5672/", "guestpw", "url-password"),
    (
        '{"auths": {"ghcr.io": {"auth": "dXNlcjpnaHBfc2VjcmV0"}}}',
        "dXNlcjpnaHBfc2VjcmV0",
        "docker-auth",
    ),
    ("_auth=dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA", "basic-auth"),
    (
        "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=",
        "LS0tLS1CRUdJTi",
        "private-key",
    ),
    ("api_org_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "api_org_AbCd", "huggingface-token"),
    ("sk-or-v1-" + HEX64, "sk-or-v1-" + HEX64, "openrouter-key"),
    ("GROQ_API_KEY gsk_" + A36 + "AbCdEfGhIjKl", "gsk_" + A36, "groq-key"),
    ("xai-" + A36 + A36[:30], "xai-" + A36, "xai-key"),
    ("pplx-" + A36 + "abcdefgh", "pplx-" + A36, "perplexity-key"),
    ("r8_" + A36 + "Z", "r8_" + A36, "replicate-token"),
    ("lsv2_pt_" + HEX32 + "_0123456789", "lsv2_pt_" + HEX32, "langsmith-key"),
    ("tvly-dev-" + A36[:32], "tvly-dev-" + A36[:32], "tavily-key"),
    ("pcsk_4dA9x_" + A36 + "abcdefgh", "pcsk_4dA9x_" + A36, "pinecone-key"),
    ("docker login -u me -p dckr_pat_AbCdEfGhIjKlMnOpQrStUv01", "dckr_pat_AbCdEf", "docker-token"),
    ("glsa_" + A36[:32] + "_0a1b2c3d", "glsa_" + A36[:32], "grafana-token"),
    ("glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrIiwiayI6ImFiYyJ9", "glc_eyJvIjoiMTIz", "grafana-token"),
    ("PMAK-0123456789abcdef01234567-" + HEX32 + "ab", "PMAK-0123456789abcdef", "postman-key"),
    ("pul-" + HEX32 + "01234567", "pul-" + HEX32, "pulumi-token"),
    ("token = AbCdEfGhIjKlMn.atlasv1." + A36 + A36, "atlasv1." + A36, "terraform-token"),
    (
        "SENTRY_AUTH_TOKEN=sntrys_eyJpYXQiOjE2OTQwMDAwMDAuMCwidXJsIjoiaHR0cHM6",
        "sntrys_eyJpYXQi",
        "sentry-token",
    ),
    ("NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0", "NRAK-ABCDEFGHIJ", "newrelic-key"),
    ("dt0c01.ABCDEFGHIJKLMNOPQRSTUVWX." + "A1B2C3D4" * 8, "dt0c01.ABCDEFGHIJ", "dynatrace-token"),
    (
        "FLY_API_TOKEN FlyV1 fm2_lJPECAAAAAAAAMRxxxxxBAAAAAAAAAAAAAAAAAAAAAAAAAAAAxyz",
        "fm2_lJPECAAAA",
        "flyio-token",
    ),
    ("sbp_" + HEX32 + "01234567", "sbp_" + HEX32, "supabase-token"),
    ("pscale_tkn_" + A36, "pscale_tkn_" + A36, "planetscale-token"),
    ("nfp_" + A36, "nfp_" + A36, "netlify-token"),
    ("rubygems_" + HEX32 + "0123456789abcdef", "rubygems_" + HEX32, "rubygems-key"),
    ("dotnet nuget push -k oy2" + "a1b2c3d4e5" * 4 + "abc", "oy2a1b2c3d4e5", "nuget-key"),
    ("CFPAT-" + A36 + "AbCdEfG", "CFPAT-" + A36, "contentful-token"),
    ("bkua_" + HEX32 + "01234567", "bkua_" + HEX32, "buildkite-token"),
    (
        "sk.eyJ1IjoibWUiLCJhIjoiY2sxMjM0NTY3ODkwIn0.AbCdEfGhIjKlMnOpQrStUv",
        "sk.eyJ1IjoibWUi",
        "mapbox-token",
    ),
    ("sq0csp-AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "sq0csp-AbCdEf", "square-token"),
    ("OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ" + "Zm9vYmFy" * 16, "ops_eyJZm9vYmFy", "1password-token"),
    ("A3-ABCDEF-GHIJKLMNOPQ-RSTUV-WXYZ0-12345", "A3-ABCDEF-GHIJKLMNOPQ", "1password-secret-key"),
    (
        "glpat-AbCdEfGhIjKlMnOpQrStUvWxYz0.01abc1234",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0.01abc1234",
        "gitlab-token",
    ),
    ("docker login -u ci -p Hunter2Pass registry.example.com", "Hunter2Pass", "password"),
    ("az login --service-principal -u app -p 'pa ss' --tenant t", "pa ss", "password"),
    ("sshpass -p s3cret ssh root@host", "s3cret", "password"),
    ('password := "GoLangPw1"', "GoLangPw1", "password"),
    ("'password' => 'rubypw123'", "rubypw123", "password"),
    ("PASSWORD ?= defaultpw1", "defaultpw1", "password"),
    ("<password>xmlPw1234</password>", "xmlPw1234", "password"),
    ('<add key="ApiKey" value="Abc123XyZ987qwe" />', "Abc123XyZ987qwe", "api-key"),
    ("private_key = 'abc123privXYZ'", "abc123privXYZ", "private-key"),
    ("MYSQL_ROOT_PASSWORD: example", "example", "password"),
    ("Server=db;User Id=sa;Password=MyS3cret!;", "MyS3cret!", "password"),
    ("jdbc:mysql://db:3306/app?user=root&password=jdbcPw1", "jdbcPw1", "password"),
    (HEX32 + "-us14", HEX32, "mailchimp-key"),
    ("AKCp8" + A36 + A36[:30], "AKCp8" + A36, "artifactory-token"),
    ("cmVmdGtuOjAxOjE3MDAwMDAwMDA6" + A36 + "abcd", "cmVmdGtuOjAxOjE3", "artifactory-token"),
    ('echo "::add-mask::hunter2value"', "hunter2value", "secret"),
    ('$pw = ConvertTo-SecureString "Pl@inText1" -AsPlainText -Force', "Pl@inText1", "password"),
    (r"net use Z: \\srv\share /user:CORP\me Winpw123 /persistent:no", "Winpw123", "password"),
    ("net user bob Winpw123! /add", "Winpw123!", "password"),
    ('NET USER Administrator "New Pw 42"', "New Pw 42", "password"),
    ('sqlcmd -S db01 -U sa -P Sq1Server! -Q "select 1"', "Sq1Server!", "password"),
    ("bcp app.dbo.t out t.dat -S db01 -U sa -PBcpPw99 -c", "BcpPw99", "password"),
    ("mongosh mongodb://db:27017 -u admin -p Mongo99pw", "Mongo99pw", "password"),
    ("smbclient //srv/share -U CORP/bob%Smb99pw", "Smb99pw", "password"),
    # A name that starts with another key word: `auth token:`, `&` after a short value.
    ("heroku auth token: 3fa85f64-5717-4562-b3fc-2c963f66afa6", "3fa85f64-5717", "token"),
    (
        "https://b.s3.amazonaws.com/k?X-Amz-Credential=ab&X-Amz-Signature="
        "3f2c1a9b8e7d6c5b4a39281706f5e4d3c2b1a0ff9e8d7c6b5a49382716f5e4d3",
        "3f2c1a9b8e7d6c5b",
        "high-entropy",
    ),
    ("Data Source=db;pwd=x;Password=Zx9kLm2qAbCd", "Zx9kLm2qAbCd", "password"),
    ("openssl pkcs12 -in a.p12 -passin pass:p12secret -nodes", "p12secret", "password"),
    ("keytool -list -keystore ks.jks -storepass storepw1", "storepw1", "password"),
    ("htpasswd -bc .htpasswd admin HtPass99", "HtPass99", "password"),
    ("REDIS_AUTH=Zx8K2mQ9vL4pR7tW1yB3nC6", "Zx8K2mQ9vL4pR7tW1yB3nC6", "high-entropy"),
    ("GH_PAT: Q9vL4pR7tW1yB3nC6Zx8K2m", "Q9vL4pR7tW1yB3nC6Zx8K2m", "high-entropy"),
    ("ALIBABA LTAI5tAbCdEfGhIjKlMnOpQr", "LTAI5tAbCdEfGhIjKlMnOpQr", "alibaba-key"),
    ("airtable patAbCdEfGhIjKlMn." + HEX64, "patAbCdEfGhIjKlMn." + HEX64, "airtable-token"),
    ("adobe p8e-" + A36[:32], "p8e-" + A36[:32], "adobe-secret"),
    ("SMTP_PASS=mailpw99", "mailpw99", "password"),
    ("DB_PWD: mailpw99", "mailpw99", "password"),
    ("myapp --db-password hunter2 --port 5432", "hunter2", "password"),
    ("SECRET_KEY_BASE=8f2a9b3c4d5e6f708192a3b4c5d6e7f8", "8f2a9b3c4d5e", "api-key"),
    (
        "[Environment]::SetEnvironmentVariable('API_TOKEN', 'abc123xyz789', 'User')",
        "abc123xyz789",
        "token",
    ),
    (
        "BRAINTREE=access_token$production$abc123def456ghi7$0123456789abcdef0123456789abcdef",
        "0123456789abcdef0123456789abcdef",
        "braintree-token",
    ),
    (
        "fb EAACEdEose0cBAabcdefghijklmnopqrstuvwxyz0123456789",
        "EAACEdEose0cBAabcdef",
        "facebook-token",
    ),
    (
        "curl -H 'x: AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F'",
        "MLheAAAAAAA0%2BuSeid",
        "twitter-bearer-token",
    ),
    (
        "DT_TOKEN dt0c01.ABCDEFGHIJKLMNOPQRSTUVWX." + "a1" * 32,
        "ABCDEFGHIJKLMNOPQRSTUVWX." + "a1" * 32,
        "dynatrace-token",
    ),
    (  # the 34-character form Telegram's own documentation shows
        "TELEGRAM_TOKEN=110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        "AAHdqTcvCH1vGWJx",
        "telegram-bot-token",
    ),
    (
        "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1/getMe",
        "AAHdqTcvCH1vGWJx",
        "telegram-bot-token",
    ),
    (
        "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nAAAAIGhpZGRlbnNlY3JldGtleW1hdGVyaWFs\nPrivate-MAC: ab",
        "AAAAIGhpZGRlbnNl",
        "private-key",
    ),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0AbCdEfGhIjKlMnOpQrStUvWxYz0123\n=AbCd\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF0AbCd",
        "private-key",
    ),
    (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n", "x": 1}',
        "MIIEvQIBADAN",
        "private-key",
    ),
]


@pytest.mark.parametrize(
    ("text", "secret", "kind"), CASES, ids=[c[2] + str(i) for i, c in enumerate(CASES)]
)
def test_provider_token_is_replaced_by_its_marker(text: str, secret: str, kind: str) -> None:
    """The secret is gone and a marker naming its kind stands in its place."""
    result = redact(text)
    assert secret not in result.text, result.text
    assert f"[REDACTED:{kind}]" in result.text, result.text
    assert kind in result.found


def test_context_around_a_secret_is_kept() -> None:
    """Only the secret part is replaced: the command, user name and host stay readable."""
    result = redact("curl -u admin:S3cretPw https://api.example.com/v1")
    assert result.text == "curl -u admin:[REDACTED:password] https://api.example.com/v1"
    result = redact("Authorization: Basic dXNlcjpwYXNzd29yZA==")
    assert result.text == "Authorization: Basic [REDACTED:basic-auth]"
    result = redact("mongodb+srv://app:p@ss@cluster0.example.net/db")
    assert result.text == "mongodb+srv://app:[REDACTED:url-password]@cluster0.example.net/db"


SURVIVORS = [
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Jane <jane@example.com>",
    "Digest: sha256:" + HEX64,
    "key: sha256:" + HEX64,
    "docker pull nginx@sha256:" + HEX64,
    '"integrity": "sha512-Q2xpZW50U2VjcmV0SXNOb3RIZXJlQnV0SXRMb29rc1JhbmRvbQ=="',
    "request id 3fa85f64-5717-4562-b3fc-2c963f66afa6 failed",
    "idempotency_key=3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "cache key: 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "/usr/lib/python3.11/site-packages/numpy/core/_multiarray_umath.cpython-311.so",
    "Successfully installed requests-2.31.0 urllib3-2.0.7 pk_live_is_public",
    "git push -u origin main\nsort -u names.txt\ndocker run -u 1000:1000 alpine",
    "mysql -u root -p shop\nmysql --port 3306 -P 3306",
    "from huggingface_hub import hf_hub_download",
    '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    "Basic usage: run the tool with --help",
    "auth: required\nREQUIRE_AUTH=true\npat=main",
    "at NotificationServiceImplTests.method.handleIncomingMessageWithRetries(Foo.java:12)",
    'SECRET_KEY = os.environ["SECRET_KEY"]\npassword = getpass.getpass()\ntoken = self.token',
    "const token = req.headers.authorization?.split(' ')[1];",
    "WWW-Authenticate: Bearer realm=api\nUse Bearer authentication for this endpoint",
    "net use Z: \\\\srv\\share /user:me *\nkeytool -storepass:env PW",
    "net user bob * /add\nnet user bob /delete\nnet user /domain\nnet user",
    'sqlcmd -S db01 -E -Q "select 1"\nmongosh -u admin -p\nsmbclient -L srv -U bob',
    "auth token: none\nthe key point: speed",
    "token: ${{ secrets.NPM_TOKEN }}",
    "API_KEY=your-api-key-here\nOPENAI_API_KEY=sk-...",
    "private_key: ~/.ssh/id_ed25519\nssl_key=/etc/ssl/private/site.key",
    '<add key="LogLevel" value="Information" />\n<keyPath>conf/app.key</keyPath>',
    'fields = ("username", "password", "email")',
    "Enter pass phrase for key '/home/me/.ssh/id_rsa':",
    "the token expired yesterday, 12 passed, 0 failed",
    "PWD=/home/me\nOLDPWD=/tmp\nbypass: true",
    "ssh -i ~/.ssh/deploy_key --token-file ./t.txt --password-stdin",
    "Cache restored from key: node-cache-Linux-x64-npm-" + HEX64,
    "docker login registry.example.com\nLogin Succeeded",
    "docker login -u me --password-stdin < token.txt",
    "redis://cache:6379/0 and postgres://db.internal:5432/app",
    "ssh://git@github.com:22/owner/repo.git",
    "Login succeeded\nwarning: password will be stored unencrypted",
    "v1.2.3-rc.1+build.456 and python 3.11.6",
]


def test_yaml_block_values_are_replaced_whole() -> None:
    """A secret written as a YAML block scalar loses every line of it; other blocks stay."""
    text = (
        "stringData:\n  password: |\n    first-line-pw\n    second-line-pw\n"
        "  script: |\n    echo hello\nnext: 1\n"
    )
    result = redact(text)
    assert "line-pw" not in result.text and result.found == ["password"]
    assert result.text == (
        "stringData:\n  password: |\n    [REDACTED:password]\n"
        "  script: |\n    echo hello\nnext: 1\n"
    )


@pytest.mark.parametrize("text", SURVIVORS)
def test_non_secrets_survive_unchanged(text: str) -> None:
    """Hashes, ids, paths, versions, images and everyday commands are not mangled."""
    result = redact(text)
    assert result.text == text and result.found == []


def test_one_megabyte_of_mixed_output() -> None:
    """A megabyte of ordinary log output is processed whole; secrets in it are still found."""
    line = (
        "2024-05-01T12:00:00Z INFO GET /api/v1/items?id=42 200 3ms sha256:"
        + HEX64[:16]
        + " user=alice\n"
    )
    text = line * (1_000_000 // len(line)) + "curl -u bob:Sup3rPw https://x\nnpm_" + A36 + "\n"
    started = time.perf_counter()
    result = redact(text)
    elapsed = time.perf_counter() - started
    print(f"\nredact: {len(text) / 1e6:.2f} MB in {elapsed * 1000:.0f} ms")
    assert "Sup3rPw" not in result.text and "npm_" + A36 not in result.text
    assert result.found == ["npm-token", "password"]
    assert result.text.count("\n") == text.count("\n")


def test_inline_image_payload_is_not_mistaken_for_tokens() -> None:
    """A data: URI whose base64 happens to contain token-like runs comes back byte for byte."""
    text = (
        "<img src='data:image/png;base64,iVBORw0KGgo+AKIAIOSFODNN7EXAMPLE+"
        "/dapi0123456789abcdef0123456789abcdef/SK0123456789abcdef0123456789abcdef=='>"
        " token=ghp_0123456789abcdefghijABCDEFGHIJklmnop"
    )
    result = redact(text)
    assert result.found == ["github-token"]
    assert result.text == text.replace(
        "ghp_0123456789abcdefghijABCDEFGHIJklmnop", "[REDACTED:github-token]"
    )


def test_pathological_inputs_finish_and_keep_their_text() -> None:
    """Long dash rules, many unterminated BEGIN lines and keyword-dense lines stay linear."""
    inputs = {
        "dash rule": "-" * 300_000,
        "table": ("+" + "-" * 78 + "+\n") * 5000,
        "mysql words": "mysql -u x " * 20_000,
        "docker login words": "docker login x " * 15_000,
        "base64 blob": "QUJDRA" * 150_000,
        "bundler names": "BUNDLE_A__COM=" * 20_000,
        "curl words": "curl -x " * 20_000,
        "vendor words": "cloudflare " * 20_000,
        "typed names": "token string " * 20_000,
        "secret manifests": "kind: Secret\ndata:\n" * 10_000,
    }
    for name, text in inputs.items():
        started = time.perf_counter()
        result = redact(text)
        print(
            f"\n{name}: {len(text) / 1e3:.0f} kB in {(time.perf_counter() - started) * 1000:.0f} ms"
        )
        assert result.text == text and result.found == [], name
    begins = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7Y2aBcDeFgHiJkLmNoPq\n" * 5000
    result = redact(begins)
    assert "MIIEow" not in result.text and result.found == ["private-key"]
