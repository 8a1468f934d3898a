//! The generic layers (keyword + value assignments in the common syntaxes,
//! keyword-gated hex / decimal / UUID / base64 values, placeholders after a
//! known prefix, identifiers that only look random): every shape with the
//! secret it must hide (true positives) beside the text it must keep
//! (false positives), as the rule table has them. All values are made up.

use agent_checkpoint_redact::{redact_json, redact_text};

/// (input, expected output) pairs for `redact_text`.
const TEXT: &[(&str, &str)] = &[
    // ---- item 5: keyword-gated hex, decimal, UUID, base64
    ("api_key = \"3f9c2a7e1b4d8f0a6c5e9b2d\"", "api_key = \"REDACTED\""),
    ("apikey: 9b1e4c7a2d5f8e0b3a6c9d2e5f8a1b4c", "apikey: REDACTED"),
    ("client_secret: 8a1b2c3d-4e5f-6789-abcd-ef0123456789", "client_secret: REDACTED"),
    ("ACCESS_TOKEN=48203917465820193746", "ACCESS_TOKEN=REDACTED"),
    ("auth = \"c29tZS1yYW5kb20tYmFzZTY0LXZhbHVl\"", "auth = \"REDACTED\""),
    ("auth: 6f1d0c9b8a7e6d5c4b3a2f1e", "auth: REDACTED"),
    ("pwd = \"7c3e9a1f5b2d8e4a\"", "pwd = \"REDACTED\""),
    ("private_key = \"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\"", "private_key = \"REDACTED\""),
    ("the api key is 5e8f1a3c7b9d2e4f6a8c0b1d3e5f7a9c", "the api key is REDACTED"),
    ("token 5e8f1a3c7b9d2e4f6a8c0b1d3e5f7a9c", "token REDACTED"),
    ("secret=0d4e8b2f6a1c9e3d7b5f", "secret=REDACTED"),
    // ---- item 6: assignments in the common syntaxes
    ("export MYAPP_CLIENT_SECRET=Qm7vX2pL9tR4wZ8k", "export MYAPP_CLIENT_SECRET=REDACTED"),
    ("SENDGRID_API_KEY=kP3nW8qZ1xT6vB9m", "SENDGRID_API_KEY=REDACTED"),
    ("api_key: 'Hx8Pq2Lm5Rt9Vz3N'", "api_key: 'REDACTED'"),
    ("\"token\": \"aB3dE6gH9jK2mN5pQ8\"", "\"token\": \"REDACTED\""),
    ("token = \"aB3dE6gH9jK2mN5pQ8\"", "token = \"REDACTED\""),
    ("[auth]\npassword = Tr0ub4dor-Xq", "[auth]\npassword = REDACTED"),
    ("secret := \"k3Jd9sLq0pXz7Vb\"", "secret := \"REDACTED\""),
    ("self.api_key = \"Zy4Wx7Vu1Ts5Rq8P\"", "self.api_key = \"REDACTED\""),
    ("const authToken = 'Lk9Jh6Gf3Ds1Qw4E';", "const authToken = 'REDACTED';"),
    ("private static final String API_SECRET = \"Mn2Bv5Cx8Zl1Kj4H\";", "private static final String API_SECRET = \"REDACTED\";"),
    ("<server password=\"Pq7Wr3Ty9Ui2Op5A\" user=\"app\"/>", "<server password=\"REDACTED\" user=\"app\"/>"),
    ("password = \"P@ssw0rd!2024#x\"", "password = \"REDACTED\""),
    ("PASSWORD=hunter2hunter", "PASSWORD=REDACTED"),
    ("$env:API_TOKEN = \"Rt5Yu8Io2Pa6Sd9F\"", "$env:API_TOKEN = \"REDACTED\""),
    ("api_key=>'Gh4Jk7Lz1Xc5Vb8N'", "api_key=>'REDACTED'"),
    ("set SECRET_KEY=Fd8Gs2Ha5Jk9Lq3W", "set SECRET_KEY=REDACTED"),
    ("database:\n  password: s3cr3tP4ssw0rd\n", "database:\n  password: REDACTED\n"),
    ("api_key = 'k4Rt9wZq2mXv7pLs'", "api_key = 'REDACTED'"),
    ("[default]\nsecret=Abc123Def456Ghi", "[default]\nsecret=REDACTED"),
    ("cfg := Config{Token: \"Abc123Def456Ghi\"}", "cfg := Config{Token: \"REDACTED\"}"),
    ("GET /v1/items?token=3f9c2a7e1b4d8f0a6c5e9b2d8e&page=2", "GET /v1/items?token=REDACTED&page=2"),
    ("client = Client(api_key=\"Ab3dE6gH9jK2mN5p\")", "client = Client(api_key=\"REDACTED\")"),
    ("'password' => 'Xy9!abc123def',", "'password' => 'REDACTED',"),
    ("grant_type=client_credentials&client_secret=Ab12Cd34Ef56Gh78&scope=x", "grant_type=client_credentials&client_secret=REDACTED&scope=x"),
    ("const cfg = { apiKey: \"Ab3dE6gH9jK2mN5p\" };", "const cfg = { apiKey: \"REDACTED\" };"),
    ("\"secret\": \"482039174658201937\"", "\"secret\": \"REDACTED\""),
    ("auth_token: \"QWxhZGRpbjpvcGVuIHNlc2FtZQ==\"", "auth_token: \"REDACTED\""),
    ("SECRET_KEY = 'p8#k2!xQ9z@w4L7m'", "SECRET_KEY = 'REDACTED'"),
    ("npm_auth=dXNlcjpwYXNzd29yZDEy", "npm_auth=REDACTED"),
    ("basicAuth: \"Zm9vOmJhcjEyMzQ1Ng==\"", "basicAuth: \"REDACTED\""),
    ("Your API key: 9b1e4c7a2d5f8e0b3a6c9d2e5f8a1b4c.", "Your API key: REDACTED."),
    ("client secret 8a1b2c3d-4e5f-6789-abcd-ef0123456789", "client secret REDACTED"),
    // ---- kept: references, calls, booleans, short words, paths, URLs
    ("password_reset_token_expiry: 3600", "password_reset_token_expiry: 3600"),
    ("api_key: null", "api_key: null"),
    ("token: undefined", "token: undefined"),
    ("password=$(cat /run/secrets/db)", "password=$(cat /run/secrets/db)"),
    ("TOKEN=$(gh auth token)", "TOKEN=$(gh auth token)"),
    ("secret_key = settings.SECRET_KEY", "secret_key = settings.SECRET_KEY"),
    ("token = req.headers[\"authorization\"]", "token = req.headers[\"authorization\"]"),
    ("password = input(\"Password: \")", "password = input(\"Password: \")"),
    ("token: Option<String>,", "token: Option<String>,"),
    ("let token = String::new();", "let token = String::new();"),
    ("password: \"{{ .Values.password }}\"", "password: \"{{ .Values.password }}\""),
    ("secret: kubernetes-secret-name-v2", "secret: kubernetes-secret-name-v2"),
    ("npm_token: npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "npm_token: npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("token_hash: 5e8f1a3c7b9d2e4f6a8c0b1d3e5f7a9c", "token_hash: 5e8f1a3c7b9d2e4f6a8c0b1d3e5f7a9c"),
    ("password: ${DB_PASSWORD:?missing}", "password: ${DB_PASSWORD:?missing}"),
    ("AUTH_TOKEN_HEADER=X-Auth-Token", "AUTH_TOKEN_HEADER=X-Auth-Token"),
    ("token: sessionStorage.getItem(\"token\")", "token: sessionStorage.getItem(\"token\")"),
    ("SECRET_KEY_FILE=/etc/app/secret", "SECRET_KEY_FILE=/etc/app/secret"),
    ("auth: { type: bearer }", "auth: { type: bearer }"),
    ("oauth: 6f1d0c9b8a7e6d5c4b3a2f1e", "oauth: 6f1d0c9b8a7e6d5c4b3a2f1e"),
    ("author: 6f1d0c9b8a7e6d5c4b3a2f1e", "author: 6f1d0c9b8a7e6d5c4b3a2f1e"),
    ("admin_email: ops2@example.com, password_url: https://vault2.example.com/ui", "admin_email: ops2@example.com, password_url: https://vault2.example.com/ui"),
    ("password: admin2@example.com", "password: admin2@example.com"),
    ("tokens used: 48213 of 200000", "tokens used: 48213 of 200000"),
    ("The secret to fast builds is caching.", "The secret to fast builds is caching."),
    ("Generated token is valid for 3600 seconds", "Generated token is valid for 3600 seconds"),
    ("secret = self.config.secret2", "secret = self.config.secret2"),
    ("token = \"v1.2.3\"", "token = \"v1.2.3\""),
    ("password: Field(default=None)", "password: Field(default=None)"),
    ("access key ID and secret are in ~/.aws/credentials", "access key ID and secret are in ~/.aws/credentials"),
    ("api_key = os.environ[\"API_KEY\"]", "api_key = os.environ[\"API_KEY\"]"),
    ("api_key = os.getenv(\"API_KEY\")", "api_key = os.getenv(\"API_KEY\")"),
    ("const token = process.env.GITHUB_TOKEN;", "const token = process.env.GITHUB_TOKEN;"),
    ("token: ${{ secrets.GITHUB_TOKEN }}", "token: ${{ secrets.GITHUB_TOKEN }}"),
    ("export API_TOKEN=$API_TOKEN", "export API_TOKEN=$API_TOKEN"),
    ("API_TOKEN=${API_TOKEN:-}", "API_TOKEN=${API_TOKEN:-}"),
    ("secret = get_secret(\"name\")", "secret = get_secret(\"name\")"),
    ("token = generateToken(user, 3600)", "token = generateToken(user, 3600)"),
    ("use_token: true", "use_token: true"),
    ("password = false", "password = false"),
    ("token: abc", "token: abc"),
    ("password = \"password\"", "password = \"password\""),
    ("password = \"changeme\"", "password = \"changeme\""),
    ("api_key = \"your-api-key-here\"", "api_key = \"your-api-key-here\""),
    ("api_key = \"<YOUR_API_KEY>\"", "api_key = \"<YOUR_API_KEY>\""),
    ("token = \"TODO\"", "token = \"TODO\""),
    ("secret_file: /run/secrets/api_key", "secret_file: /run/secrets/api_key"),
    ("token_url: https://auth.example.com/oauth/token", "token_url: https://auth.example.com/oauth/token"),
    ("TOKEN=/var/run/secrets/kubernetes.io/serviceaccount/token", "TOKEN=/var/run/secrets/kubernetes.io/serviceaccount/token"),
    ("max_tokens: 4096", "max_tokens: 4096"),
    ("token_count = 1234567890123", "token_count = 1234567890123"),
    ("port: 5432, token_limit: 100000", "port: 5432, token_limit: 100000"),
    ("secret = self.secret", "secret = self.secret"),
    ("password = config.password", "password = config.password"),
    ("token = None", "token = None"),
    ("token: string;", "token: string;"),
    ("password: str = Field(...)", "password: str = Field(...)"),
    ("api_key = \"sk-...\"", "api_key = \"sk-...\""),
    ("password = \"********\"", "password = \"********\""),
    ("secret := os.Getenv(\"SECRET\")", "secret := os.Getenv(\"SECRET\")"),
    ("auth: oauth2", "auth: oauth2"),
    ("author = 8a1b2c3d4e5f6789abcd", "author = 8a1b2c3d4e5f6789abcd"),
    ("auth_method = \"password\"", "auth_method = \"password\""),
    ("password: ''", "password: ''"),
    ("The token expired after 3600 seconds", "The token expired after 3600 seconds"),
    ("pwd: /home/user/project", "pwd: /home/user/project"),
    ("PWD=/workspace/project", "PWD=/workspace/project"),
    ("token_type: bearer", "token_type: bearer"),
    ("secret = \"\"", "secret = \"\""),
    ("tokenizer = AutoTokenizer.from_pretrained(\"gpt2\")", "tokenizer = AutoTokenizer.from_pretrained(\"gpt2\")"),
    ("api_key: my-api-key", "api_key: my-api-key"),
    ("secret: not-a-real-secret", "secret: not-a-real-secret"),
    ("token = \"dummy-token-value\"", "token = \"dummy-token-value\""),
    // ---- hashes named as such
    ("sha: 3f786850e387550fdab836ed7e6dc881de23001b", "sha: 3f786850e387550fdab836ed7e6dc881de23001b"),
    ("commit=3f786850e387550fdab836ed7e6dc881de23001b", "commit=3f786850e387550fdab836ed7e6dc881de23001b"),
    ("version=3f786850e387550fdab836ed7e6dc881de23001b", "version=3f786850e387550fdab836ed7e6dc881de23001b"),
    ("digest: sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "digest: sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    ("etag: \"5d41402abc4b2a76b9719d911017c592\"", "etag: \"5d41402abc4b2a76b9719d911017c592\""),
    ("checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"", "checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\""),
    ("\"integrity\": \"sha1-5d41402abc4b2a76b9719d911017c592aaaa\"", "\"integrity\": \"sha1-5d41402abc4b2a76b9719d911017c592aaaa\""),
    ("token_sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "token_sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("request_id: 8a1b2c3d-4e5f-6789-abcd-ef0123456789", "request_id: 8a1b2c3d-4e5f-6789-abcd-ef0123456789"),
    ("session 8a1b2c3d-4e5f-6789-abcd-ef0123456789 started", "session 8a1b2c3d-4e5f-6789-abcd-ef0123456789 started"),
    // ---- placeholders after a known prefix, documented examples
    ("GITHUB_TOKEN=github_pat_xxxxxxxxxxxxxxxxxxxxxx_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "GITHUB_TOKEN=github_pat_xxxxxxxxxxxxxxxxxxxxxx_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("glsa_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX_XXXXXXXX", "glsa_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX_XXXXXXXX"),
    ("sntryu_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "sntryu_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("ghp_0123456789abcdefghijklmnopqrstuvwxyz", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"),
    ("sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("api_key = \"sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\"", "api_key = \"sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\""),
    ("token = \"xoxb-XXXXXXXXXXXX-XXXXXXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXX\"", "token = \"xoxb-XXXXXXXXXXXX-XXXXXXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXX\""),
    ("api_key = \"1234567890abcdef1234567890abcdef\"", "api_key = \"1234567890abcdef1234567890abcdef\""),
    ("token = \"abcdefghijklmnopqrstuvwxyz0123456789\"", "token = \"abcdefghijklmnopqrstuvwxyz0123456789\""),
    // ---- identifiers
    ("hf_requiredCharacteristicTypesForDisplayMetadata", "hf_requiredCharacteristicTypesForDisplayMetadata"),
    ("getAuthenticationTokenForServiceAccountCredentials2", "getAuthenticationTokenForServiceAccountCredentials2"),
    ("token = refreshAccessTokenWithRetry2", "token = refreshAccessTokenWithRetry2"),
    ("AbstractSingletonProxyFactoryBeanDefinitionParser3", "AbstractSingletonProxyFactoryBeanDefinitionParser3"),
    ("secret = createSecretKeySpecFromBase64", "secret = createSecretKeySpecFromBase64"),
];

/// (input, expected output) pairs for `redact_json`: the same layers on
/// string values, and keys naming a secret.
const JSON: &[(&str, &str)] = &[
    (
        r#"{"api_key": "3f9c2a7e1b4d8f0a6c5e9b2d"}"#,
        r#"{"api_key": "REDACTED"}"#,
    ),
    (
        r#"{"password": "P@ssw0rd!2024#x", "user": "app"}"#,
        r#"{"password": "REDACTED", "user": "app"}"#,
    ),
    (
        r#"{"clientSecret": "8a1b2c3d-4e5f-6789-abcd-ef0123456789"}"#,
        r#"{"clientSecret": "REDACTED"}"#,
    ),
    (
        r#"{"type": "text", "text": "the api key is 5e8f1a3c7b9d2e4f6a8c0b1d3e5f7a9c ok"}"#,
        r#"{"type": "text", "text": "the api key is REDACTED ok"}"#,
    ),
    (
        r#"{"command": "export MYAPP_CLIENT_SECRET=Qm7vX2pL9tR4wZ8k && run"}"#,
        r#"{"command": "export MYAPP_CLIENT_SECRET=REDACTED && run"}"#,
    ),
    (
        r#"{"token": "process.env.GITHUB_TOKEN", "password": "changeme"}"#,
        r#"{"token": "process.env.GITHUB_TOKEN", "password": "changeme"}"#,
    ),
    (
        r#"{"sha": "3f786850e387550fdab836ed7e6dc881de23001b", "etag": "5d41402abc4b2a76b9719d911017c592"}"#,
        r#"{"sha": "3f786850e387550fdab836ed7e6dc881de23001b", "etag": "5d41402abc4b2a76b9719d911017c592"}"#,
    ),
    (
        r#"{"max_tokens": 4096, "token_type": "bearer", "auth": "oauth2"}"#,
        r#"{"max_tokens": 4096, "token_type": "bearer", "auth": "oauth2"}"#,
    ),
    (
        r#"{"name": "hf_requiredCharacteristicTypesForDisplayMetadata"}"#,
        r#"{"name": "hf_requiredCharacteristicTypesForDisplayMetadata"}"#,
    ),
];

#[test]
fn generic_layers_in_json() {
    let mut failures = Vec::new();
    for (input, expected) in JSON {
        let got = redact_json(input);
        if got != *expected {
            failures.push(format!("  {input}\n    want {expected}\n    got  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn generic_layers_hide_secrets_and_keep_the_rest() {
    let mut failures = Vec::new();
    for (input, expected) in TEXT {
        let got = redact_text(input);
        if got != *expected {
            failures.push(format!(
                "  {input:?}\n    want {expected:?}\n    got  {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        TEXT.len(),
        failures.join("\n")
    );
}
