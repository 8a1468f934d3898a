//! Layer 2: the table of known token formats, as data.
//!
//! Each [`Rule`] names a provider's documented token shape. A rule's regex
//! runs only where one of its keywords occurs (found by one Aho-Corasick pass
//! over the text), anchored at that occurrence (or a little before it, see
//! [`Anchor`]), so the table can grow without making every text slower.
//!
//! To add a format: append a `Rule` below (keywords that every match
//! contains, at or near its start) with made-up `examples` (a text and its
//! exact redacted output) and `near_misses` (texts kept as they are) beside
//! it, as gitleaks keeps true and false positives with each rule; or add a
//! generated secret and a near miss to `tests/rules.rs`. A test refuses
//! rules with neither, and plays both.

/// Where a rule's match starts relative to a keyword occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// At the keyword itself.
    Keyword,
    /// At the start of the identifier (`[A-Za-z0-9_-]*`) that holds the keyword.
    Ident,
    /// At the start of the digits right before the keyword.
    Digits,
    /// At the scheme of a URL, when `scheme://` comes right before the keyword.
    Url,
    /// Exactly this many bytes before the keyword.
    Before(usize),
}

/// One known token format.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The name reported in findings (`github_pat`).
    pub name: &'static str,
    /// Literal keywords; the rule runs only where one occurs.
    pub keywords: &'static [&'static str],
    /// Keywords also match in lower, UPPER and Capitalized form.
    pub any_case: bool,
    /// Where the match starts relative to the keyword.
    pub anchor: Anchor,
    /// The match must not continue a word (`[A-Za-z0-9_]` before it, a JSON
    /// escape such as `\n` excepted).
    pub word_start: bool,
    /// The regex, matched anchored at the start. Capture group 1, when it took
    /// part in the match, is the secret; otherwise the whole match is.
    pub pattern: &'static str,
    /// An extra test the secret must pass.
    pub check: Option<fn(&str) -> bool>,
    /// The longest match looked for, in bytes (bounds the work per keyword
    /// occurrence, so that redaction stays linear in the input).
    pub max_len: usize,
    /// A keyword + value rule (a secret's name, then a value of a secret's
    /// shape): less specific than the other layers, so a finding it shares
    /// with one of them is named after that one.
    pub generic: bool,
    /// The keyword ends the secret's name: its match needs `=` or `:`
    /// right after it (a quote and a few spaces between allowed), checked
    /// before the regex runs (most occurrences of `token` are prose).
    pub glue_after_keyword: bool,
    /// Texts the rule redacts, with the output expected (true positives,
    /// made up; played by `rules::tests`).
    pub examples: &'static [(&'static str, &'static str)],
    /// Texts of the same look that the default redactor keeps as they are
    /// (false positives the rule avoids).
    pub near_misses: &'static [&'static str],
    /// A layer of its own instead of the regex: called at a keyword
    /// occurrence (`text`, keyword start, keyword end), it reports every
    /// secret's span and returns the end of the text it examined (a later
    /// occurrence before that is not scanned again); for secrets a regex's
    /// one capture cannot give (the values of a Kubernetes Secret's
    /// `data:` block).
    pub scan: Option<Scan>,
}

/// A rule's own scan: see [`Rule::scan`].
pub type Scan = fn(&str, usize, usize, &mut dyn FnMut(usize, usize)) -> usize;

const BASE: Rule = Rule {
    name: "",
    keywords: &[],
    any_case: false,
    anchor: Anchor::Keyword,
    word_start: false,
    pattern: "",
    check: None,
    max_len: 512,
    generic: false,
    glue_after_keyword: false,
    examples: &[],
    near_misses: &[],
    scan: None,
};

/// The glue between a credential's name and its value: an optional closing
/// quote, `:`, `=`, `:=` or `=>`, and an optional opening quote.
macro_rules! assign {
    () => {
        r#"["']?[ \t]{0,4}(?::=|=>|[:=])[ \t]{0,4}["']?"#
    };
}

/// The body of a PEM block: base64, line breaks (or `\n` escapes, as found
/// in JSON) and `Name: value` header lines, lazily up to its END line; or,
/// when the END line is missing, the base64 that follows (64 bytes at least:
/// a lone BEGIN line, as in code that looks for one, is no key).
macro_rules! pem {
    ($kind:literal) => {
        concat!(
            "-----BEGIN ",
            $kind,
            "PRIVATE KEY(?: BLOCK)?-----",
            r"(?:(?:[A-Za-z0-9+/=]|\s|\\[nrt]|[A-Za-z][A-Za-z-]*:[ \t][^\n\\]*){16,}?-----END ",
            $kind,
            r"PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=]|\s|\\[nrt]){64,})"
        )
    };
}

fn not_a_url(s: &str) -> bool {
    !s.contains("://")
}

/// A password with no name beside it: digits and letters, or 12 bytes.
fn password_shaped(s: &str) -> bool {
    has_digit_and_letter(s) || s.len() >= 12
}

/// A password given on a command line: password-shaped, not a variable.
fn cli_password(s: &str) -> bool {
    password_shaped(s) && crate::shapes::not_a_variable(s)
}

/// The part after `|` of a Facebook app token: 32 hex, or base64url mixing
/// upper case, lower case and digits (not words joined by `_`).
fn facebook_secret_part(s: &str) -> bool {
    let t = s.rsplit('|').next().unwrap_or("").as_bytes();
    (t.len() == 32 && t.iter().all(|c| c.is_ascii_hexdigit()))
        || (t.iter().any(u8::is_ascii_digit)
            && t.iter().any(u8::is_ascii_uppercase)
            && t.iter().any(u8::is_ascii_lowercase))
}

fn has_digit_and_letter(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Every known token format, in priority order (an earlier rule names a
/// finding that a later one matches with the same span).
pub static RULES: &[Rule] = &[
    // ---- Amazon Web Services
    Rule {
        name: "aws_access_key_id",
        keywords: &["AKIA", "ASIA", "ABIA", "ACCA"],
        word_start: true,
        // Keys glued together (`AKIA…AKIA…`) are one finding.
        pattern: r"(?:(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})+(?-u:\b)",
        ..BASE
    },
    Rule {
        name: "aws_secret_access_key",
        keywords: &[
            "secret_access_key",
            "secretaccesskey",
            "secretAccessKey",
            "SecretAccessKey",
            "secret-access-key",
        ],
        any_case: true,
        pattern: concat!(
            r"(?i:secret[_-]?access[_-]?key)",
            assign!(),
            r"([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"
        ),
        ..BASE
    },
    Rule {
        name: "aws_session_token",
        keywords: &[
            "session_token",
            "sessiontoken",
            "sessionToken",
            "SessionToken",
            "session-token",
        ],
        any_case: true,
        pattern: concat!(
            r"(?i:session[_-]?token)",
            assign!(),
            r"([A-Za-z0-9/+=]{100,})"
        ),
        max_len: 4096,
        ..BASE
    },
    // ---- Google Cloud
    Rule {
        name: "gcp_api_key",
        keywords: &["AIza"],
        word_start: true,
        pattern: r"AIza[0-9A-Za-z_-]{35}",
        ..BASE
    },
    Rule {
        name: "gcp_oauth_client_secret",
        keywords: &["GOCSPX-"],
        pattern: r"GOCSPX-[0-9A-Za-z_-]{28,}",
        ..BASE
    },
    Rule {
        name: "gcp_oauth_access_token",
        keywords: &["ya29."],
        word_start: true,
        pattern: r"ya29\.[0-9A-Za-z_-]{30,}",
        ..BASE
    },
    Rule {
        name: "gcp_oauth_refresh_token",
        keywords: &["1//0"],
        word_start: true,
        pattern: r"1//0[0-9A-Za-z_-]{40,}",
        ..BASE
    },
    Rule {
        name: "gcp_service_account_private_key",
        keywords: &["\"private_key\""],
        pattern: r#""private_key"\s*:\s*"(-----BEGIN PRIVATE KEY-----[^"]{20,}?-----END PRIVATE KEY-----(?:\\n)?)""#,
        max_len: 16384,
        ..BASE
    },
    // ---- Microsoft Azure
    Rule {
        name: "azure_storage_connection_string",
        keywords: &["DefaultEndpointsProtocol="],
        pattern: r"DefaultEndpointsProtocol=https?;AccountName=[A-Za-z0-9]{3,24};AccountKey=[A-Za-z0-9+/]{86}==(?:;EndpointSuffix=[A-Za-z0-9.]+)?",
        ..BASE
    },
    Rule {
        name: "azure_storage_account_key",
        keywords: &["AccountKey="],
        pattern: r"AccountKey=([A-Za-z0-9+/]{86}==)",
        ..BASE
    },
    Rule {
        name: "azure_sas_token",
        keywords: &["sig="],
        anchor: Anchor::Before(1),
        pattern: r"[?&;]sig=([A-Za-z0-9%+/]{43,}(?:%3D|=){0,2})",
        ..BASE
    },
    Rule {
        name: "azure_shared_access_key",
        keywords: &["SharedAccessKey="],
        pattern: r"SharedAccessKey=([A-Za-z0-9+/]{42,43}=)",
        ..BASE
    },
    Rule {
        name: "azure_ad_client_secret",
        keywords: &["Q~"],
        anchor: Anchor::Before(4),
        word_start: true,
        pattern: r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        ..BASE
    },
    // ---- GitHub
    Rule {
        name: "github_pat",
        keywords: &["ghp_"],
        pattern: r"ghp_[A-Za-z0-9]{36,255}",
        ..BASE
    },
    Rule {
        name: "github_fine_grained_pat",
        keywords: &["github_pat_"],
        pattern: r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,}",
        ..BASE
    },
    Rule {
        name: "github_oauth_token",
        keywords: &["gho_"],
        pattern: r"gho_[A-Za-z0-9]{36,255}",
        ..BASE
    },
    Rule {
        name: "github_user_to_server_token",
        keywords: &["ghu_"],
        pattern: r"ghu_[A-Za-z0-9]{36,255}",
        ..BASE
    },
    Rule {
        name: "github_app_installation_token",
        keywords: &["ghs_"],
        pattern: r"ghs_[A-Za-z0-9]{36,255}",
        ..BASE
    },
    Rule {
        name: "github_refresh_token",
        keywords: &["ghr_"],
        pattern: r"ghr_[A-Za-z0-9]{36,255}",
        ..BASE
    },
    // ---- GitLab
    Rule {
        name: "gitlab_pat",
        keywords: &["glpat-"],
        pattern: r"glpat-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?",
        ..BASE
    },
    Rule {
        name: "gitlab_deploy_token",
        keywords: &["gldt-"],
        pattern: r"gldt-[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "gitlab_pipeline_trigger_token",
        keywords: &["glptt-"],
        pattern: r"glptt-[0-9a-f]{40}",
        ..BASE
    },
    Rule {
        name: "gitlab_runner_token",
        keywords: &["glrt-"],
        pattern: r"glrt-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?",
        ..BASE
    },
    Rule {
        name: "gitlab_runner_registration_token",
        keywords: &["GR1348941"],
        pattern: r"GR1348941[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "gitlab_oauth_app_secret",
        keywords: &["gloas-"],
        pattern: r"gloas-[A-Za-z0-9_-]{64}",
        ..BASE
    },
    Rule {
        name: "gitlab_ci_build_token",
        keywords: &["glcbt-"],
        pattern: r"glcbt-(?:[0-9a-fA-F]{1,5}_)?[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "gitlab_feed_token",
        keywords: &["glft-"],
        pattern: r"glft-[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "gitlab_scim_token",
        keywords: &["glsoat-"],
        pattern: r"glsoat-[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "gitlab_agent_token",
        keywords: &["glagent-"],
        pattern: r"glagent-[A-Za-z0-9_-]{50,}",
        ..BASE
    },
    Rule {
        name: "gitlab_incoming_mail_token",
        keywords: &["glimt-"],
        pattern: r"glimt-[A-Za-z0-9_-]{25,}",
        ..BASE
    },
    Rule {
        name: "gitlab_feature_flag_client_token",
        keywords: &["glffct-"],
        pattern: r"glffct-[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    // ---- Atlassian
    Rule {
        name: "atlassian_api_token",
        keywords: &["ATATT"],
        word_start: true,
        pattern: r"ATATT[A-Za-z0-9_=+/-]{60,}",
        max_len: 1024,
        ..BASE
    },
    Rule {
        name: "bitbucket_app_password",
        keywords: &["ATBB"],
        word_start: true,
        pattern: r"ATBB[A-Za-z0-9_=.-]{28,}",
        ..BASE
    },
    // ---- Package registries
    Rule {
        name: "npm_access_token",
        keywords: &["npm_"],
        word_start: true,
        pattern: r"npm_[A-Za-z0-9]{36,}",
        ..BASE
    },
    Rule {
        name: "pypi_api_token",
        keywords: &["pypi-Ag"],
        pattern: r"pypi-Ag[A-Za-z0-9_-]{60,}",
        ..BASE
    },
    Rule {
        name: "crates_io_api_token",
        keywords: &["cio"],
        word_start: true,
        pattern: r"cio[A-Za-z0-9]{32}(?-u:\b)",
        ..BASE
    },
    Rule {
        name: "dockerhub_token",
        keywords: &["dckr_pat_", "dckr_oat_"],
        pattern: r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
        ..BASE
    },
    Rule {
        name: "rubygems_api_key",
        keywords: &["rubygems_"],
        pattern: r"rubygems_[0-9a-f]{48}",
        ..BASE
    },
    Rule {
        name: "nuget_api_key",
        keywords: &["oy2"],
        word_start: true,
        pattern: r"oy2[a-z0-9]{43}(?-u:\b)",
        ..BASE
    },
    // ---- Slack
    Rule {
        name: "slack_bot_token",
        keywords: &["xoxb-"],
        // Also the older shape with one numeric segment.
        pattern: r"xoxb-[0-9]{10,13}-[0-9]{10,13}[A-Za-z0-9-]*|xoxb-[0-9]{8,14}-[A-Za-z0-9]{18,48}(?-u:\b)",
        examples: &[(
            "SLACK_BOT=xoxb-123456789012-B1R0dtVB4vpTPFXoBjBwpvaA",
            "SLACK_BOT=REDACTED",
        )],
        near_misses: &["see xoxb-123456789012-docs for the bot scopes"],
        ..BASE
    },
    Rule {
        name: "slack_user_token",
        keywords: &["xoxp-"],
        // Also the short shape: two numeric segments, a shorter secret.
        pattern: r"xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{28,34}|xoxp-[0-9]{6,14}(?:-[0-9]{6,14}){1,2}-[A-Za-z0-9]{16,64}(?-u:\b)",
        examples: &[(
            "token xoxp-1234567890-1234567890-8kBKkX4EZQIcci2iJ8e5KEuXmHqkskjq",
            "token REDACTED",
        )],
        near_misses: &["xoxp-1234567890 is the prefix of a user token"],
        ..BASE
    },
    Rule {
        name: "slack_app_token",
        keywords: &["xapp-"],
        pattern: r"xapp-[0-9]+-[A-Z0-9]+-[0-9]+-[A-Za-z0-9]{20,}",
        ..BASE
    },
    Rule {
        name: "slack_legacy_token",
        keywords: &["xoxa-", "xoxo-", "xoxr-", "xoxs-"],
        pattern: r"xox[aors]-[0-9]+-[0-9A-Za-z-]{16,}",
        ..BASE
    },
    Rule {
        name: "slack_config_token",
        keywords: &["xoxe.xoxb-", "xoxe.xoxp-", "xoxe-"],
        pattern: r"xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{100,}|xoxe-[0-9]-[A-Za-z0-9]{100,}",
        max_len: 1024,
        ..BASE
    },
    Rule {
        name: "slack_webhook_url",
        keywords: &["hooks.slack.com/"],
        anchor: Anchor::Url,
        pattern: r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        ..BASE
    },
    // ---- Discord, Telegram
    Rule {
        name: "discord_bot_token",
        keywords: &["discord", "Bot ", "bot "],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?:(?i:[a-z0-9_-]*discord[a-z0-9_-]*)",
            assign!(),
            r"|(?i:bot)[ \t]+)([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"
        ),
        ..BASE
    },
    Rule {
        name: "discord_webhook_url",
        keywords: &["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
        anchor: Anchor::Url,
        pattern: r"(?:https?://)?(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}",
        ..BASE
    },
    Rule {
        name: "telegram_bot_token",
        keywords: &[":AA"],
        anchor: Anchor::Digits,
        pattern: r"[0-9]{8,10}:AA[0-9A-Za-z_-]{33}",
        ..BASE
    },
    // ---- Mail and messaging APIs
    Rule {
        name: "sendgrid_api_key",
        keywords: &["SG."],
        pattern: r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        ..BASE
    },
    Rule {
        name: "mailgun_api_key",
        keywords: &["key-"],
        word_start: true,
        pattern: r"key-[0-9a-f]{32}(?-u:\b)",
        ..BASE
    },
    Rule {
        name: "mailchimp_api_key",
        keywords: &["-us"],
        anchor: Anchor::Before(32),
        word_start: true,
        pattern: r"[0-9a-f]{32}-us[0-9]{1,2}(?-u:\b)",
        ..BASE
    },
    Rule {
        name: "brevo_api_key",
        keywords: &["xkeysib-"],
        pattern: r"xkeysib-[0-9a-f]{64}-[A-Za-z0-9]{16}",
        ..BASE
    },
    Rule {
        name: "twilio_api_key",
        keywords: &["SK"],
        word_start: true,
        pattern: r"SK[0-9a-fA-F]{32}(?-u:\b)",
        ..BASE
    },
    Rule {
        name: "twilio_account_sid",
        keywords: &["AC"],
        word_start: true,
        pattern: r"AC[0-9a-f]{32}(?-u:\b)",
        ..BASE
    },
    // ---- Payments
    Rule {
        name: "stripe_secret_key",
        keywords: &["sk_live_", "sk_test_"],
        word_start: true,
        pattern: r"sk_(?:live|test)_[0-9A-Za-z]{24,247}",
        ..BASE
    },
    Rule {
        name: "stripe_restricted_key",
        keywords: &["rk_live_", "rk_test_"],
        word_start: true,
        pattern: r"rk_(?:live|test)_[0-9A-Za-z]{24,247}",
        ..BASE
    },
    Rule {
        name: "stripe_publishable_key",
        keywords: &["pk_live_"],
        word_start: true,
        pattern: r"pk_live_[0-9A-Za-z]{24,247}",
        ..BASE
    },
    Rule {
        name: "stripe_webhook_secret",
        keywords: &["whsec_"],
        word_start: true,
        pattern: r"whsec_[A-Za-z0-9+/=]{32,}",
        ..BASE
    },
    Rule {
        name: "square_access_token",
        keywords: &["EAAA", "sq0atp-"],
        word_start: true,
        pattern: r"EAAA[A-Za-z0-9_-]{60,}|sq0atp-[0-9A-Za-z_-]{22,}",
        ..BASE
    },
    Rule {
        name: "square_oauth_secret",
        keywords: &["sq0csp-"],
        word_start: true,
        pattern: r"sq0csp-[0-9A-Za-z_-]{40,}",
        ..BASE
    },
    Rule {
        name: "paypal_braintree_access_token",
        keywords: &["access_token$"],
        pattern: r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        ..BASE
    },
    Rule {
        name: "shippo_api_token",
        keywords: &["shippo_live_", "shippo_test_"],
        pattern: r"shippo_(?:live|test)_[0-9a-f]{40}",
        ..BASE
    },
    Rule {
        name: "easypost_api_key",
        keywords: &["EZAK", "EZTK"],
        word_start: true,
        pattern: r"EZ[AT]K[A-Za-z0-9]{54}",
        ..BASE
    },
    Rule {
        name: "flutterwave_secret_key",
        keywords: &["FLWSECK"],
        pattern: r"FLWSECK(?:_TEST)?-[A-Za-z0-9]{32}-X",
        ..BASE
    },
    // ---- AI providers
    Rule {
        name: "openai_api_key",
        keywords: &["sk-"],
        word_start: true,
        pattern: r"sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}",
        max_len: 256,
        ..BASE
    },
    Rule {
        name: "openai_project_key",
        keywords: &["sk-proj-"],
        pattern: r"sk-proj-[A-Za-z0-9_-]{40,}",
        ..BASE
    },
    Rule {
        name: "openai_service_account_key",
        keywords: &["sk-svcacct-"],
        pattern: r"sk-svcacct-[A-Za-z0-9_-]{40,}",
        ..BASE
    },
    Rule {
        name: "openai_admin_key",
        keywords: &["sk-admin-"],
        pattern: r"sk-admin-[A-Za-z0-9_-]{40,}",
        ..BASE
    },
    Rule {
        name: "anthropic_api_key",
        keywords: &["sk-ant-api"],
        pattern: r"sk-ant-api[0-9]{2}-[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "anthropic_admin_key",
        keywords: &["sk-ant-admin"],
        pattern: r"sk-ant-admin[0-9]{2}-[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "openrouter_api_key",
        keywords: &["sk-or-v1-"],
        pattern: r"sk-or-v1-[0-9a-f]{64}",
        ..BASE
    },
    Rule {
        name: "huggingface_token",
        keywords: &["hf_"],
        word_start: true,
        pattern: r"hf_[A-Za-z0-9]{34,}",
        ..BASE
    },
    Rule {
        name: "huggingface_org_token",
        keywords: &["api_org_"],
        word_start: true,
        pattern: r"api_org_[A-Za-z0-9]{34,}",
        ..BASE
    },
    Rule {
        name: "groq_api_key",
        keywords: &["gsk_"],
        word_start: true,
        pattern: r"gsk_[A-Za-z0-9]{52,}",
        ..BASE
    },
    Rule {
        name: "replicate_api_token",
        keywords: &["r8_"],
        word_start: true,
        pattern: r"r8_[A-Za-z0-9]{37,}",
        ..BASE
    },
    Rule {
        name: "perplexity_api_key",
        keywords: &["pplx-"],
        word_start: true,
        pattern: r"pplx-[A-Za-z0-9]{48,}",
        ..BASE
    },
    Rule {
        name: "xai_api_key",
        keywords: &["xai-"],
        word_start: true,
        pattern: r"xai-[A-Za-z0-9]{80,}",
        ..BASE
    },
    Rule {
        name: "langsmith_api_key",
        keywords: &["lsv2_"],
        word_start: true,
        pattern: r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}",
        ..BASE
    },
    // ---- Commerce, productivity and developer platforms
    Rule {
        name: "shopify_access_token",
        keywords: &["shpat_"],
        pattern: r"shpat_[a-fA-F0-9]{32}",
        ..BASE
    },
    Rule {
        name: "shopify_custom_app_token",
        keywords: &["shpca_"],
        pattern: r"shpca_[a-fA-F0-9]{32}",
        ..BASE
    },
    Rule {
        name: "shopify_private_app_token",
        keywords: &["shppa_"],
        pattern: r"shppa_[a-fA-F0-9]{32}",
        ..BASE
    },
    Rule {
        name: "shopify_shared_secret",
        keywords: &["shpss_"],
        pattern: r"shpss_[a-fA-F0-9]{32}",
        ..BASE
    },
    Rule {
        name: "linear_api_key",
        keywords: &["lin_api_"],
        pattern: r"lin_api_[A-Za-z0-9]{40}",
        ..BASE
    },
    Rule {
        name: "notion_token",
        keywords: &["ntn_", "secret_"],
        word_start: true,
        pattern: r"ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}(?-u:\b)",
        ..BASE
    },
    Rule {
        name: "datadog_api_key",
        keywords: &["datadog", "dd_api_key", "dd-api-key", "ddapikey"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*(?:datadog|dd)[_-]?api[_-]?key)",
            assign!(),
            r"([a-f0-9]{32})(?-u:\b)"
        ),
        ..BASE
    },
    Rule {
        name: "datadog_app_key",
        keywords: &[
            "datadog",
            "dd_app_key",
            "dd-app-key",
            "dd_application_key",
            "ddappkey",
        ],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*(?:datadog|dd)[_-]?app(?:lication)?[_-]?key)",
            assign!(),
            r"([a-f0-9]{40})(?-u:\b)"
        ),
        ..BASE
    },
    Rule {
        name: "new_relic_user_api_key",
        keywords: &["NRAK-"],
        pattern: r"NRAK-[A-Z0-9]{27}",
        ..BASE
    },
    Rule {
        name: "new_relic_license_key",
        keywords: &["NRAL"],
        anchor: Anchor::Before(36),
        word_start: true,
        pattern: r"[a-f0-9]{36}NRAL",
        ..BASE
    },
    Rule {
        name: "new_relic_insert_key",
        keywords: &["NRII-"],
        pattern: r"NRII-[A-Za-z0-9_-]{32}",
        ..BASE
    },
    Rule {
        name: "sentry_org_token",
        keywords: &["sntrys_"],
        pattern: r"sntrys_[A-Za-z0-9+/=_-]{50,}",
        max_len: 1024,
        ..BASE
    },
    Rule {
        name: "sentry_user_token",
        keywords: &["sntryu_"],
        pattern: r"sntryu_[a-f0-9]{64}",
        ..BASE
    },
    Rule {
        name: "heroku_api_key",
        keywords: &["heroku", "HRKU-"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"HRKU-[A-Za-z0-9_-]{40,}|(?i:[a-z0-9_-]*heroku[a-z0-9_-]*)",
            assign!(),
            r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
        ),
        ..BASE
    },
    Rule {
        name: "digitalocean_pat",
        keywords: &["dop_v1_"],
        pattern: r"dop_v1_[a-f0-9]{64}",
        ..BASE
    },
    Rule {
        name: "digitalocean_oauth_token",
        keywords: &["doo_v1_"],
        pattern: r"doo_v1_[a-f0-9]{64}",
        ..BASE
    },
    Rule {
        name: "digitalocean_refresh_token",
        keywords: &["dor_v1_"],
        pattern: r"dor_v1_[a-f0-9]{64}",
        ..BASE
    },
    Rule {
        name: "vercel_token",
        keywords: &["vercel"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*vercel[a-z0-9_-]*)",
            assign!(),
            r"([A-Za-z0-9]{24})(?-u:\b)"
        ),
        ..BASE
    },
    Rule {
        name: "netlify_token",
        keywords: &["nfp_", "netlify"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"nfp_[A-Za-z0-9]{36,}|(?i:[a-z0-9_-]*netlify[a-z0-9_-]*)",
            assign!(),
            r"([A-Za-z0-9_-]{40,46})(?-u:\b)"
        ),
        ..BASE
    },
    Rule {
        name: "supabase_access_token",
        keywords: &["sbp_"],
        word_start: true,
        pattern: r"sbp_[a-f0-9]{40}",
        ..BASE
    },
    Rule {
        name: "supabase_secret_key",
        keywords: &["sb_secret_"],
        word_start: true,
        pattern: r"sb_secret_[A-Za-z0-9_-]{31,}",
        ..BASE
    },
    Rule {
        name: "pulumi_access_token",
        keywords: &["pul-"],
        word_start: true,
        pattern: r"pul-[a-f0-9]{40}",
        ..BASE
    },
    Rule {
        name: "doppler_token",
        keywords: &["dp."],
        word_start: true,
        pattern: r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        ..BASE
    },
    Rule {
        name: "hashicorp_vault_token",
        keywords: &["hvs.", "hvb.", "hvr."],
        word_start: true,
        pattern: r"hv[sbr]\.[A-Za-z0-9_-]{24,}",
        ..BASE
    },
    Rule {
        name: "terraform_cloud_token",
        keywords: &[".atlasv1."],
        anchor: Anchor::Before(14),
        word_start: true,
        pattern: r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        ..BASE
    },
    Rule {
        name: "postman_api_key",
        keywords: &["PMAK-"],
        pattern: r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}",
        ..BASE
    },
    Rule {
        name: "mapbox_secret_token",
        keywords: &["sk.eyJ"],
        word_start: true,
        pattern: r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        ..BASE
    },
    Rule {
        name: "algolia_admin_key",
        keywords: &["algolia"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*algolia[a-z0-9_-]*)",
            assign!(),
            r"([a-f0-9]{32})(?-u:\b)"
        ),
        ..BASE
    },
    Rule {
        name: "databricks_token",
        keywords: &["dapi"],
        word_start: true,
        pattern: r"dapi[a-f0-9]{32}(?:-[0-9]+)?",
        ..BASE
    },
    Rule {
        name: "cloudflare_api_token",
        keywords: &["cloudflare", "cf_api_token", "cf_api_key"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*(?:cloudflare|cf_api)[a-z0-9_-]*)",
            assign!(),
            r"([A-Za-z0-9_-]{37,40})(?-u:\b)"
        ),
        ..BASE
    },
    Rule {
        name: "cloudflare_origin_ca_key",
        keywords: &["v1.0-"],
        word_start: true,
        pattern: r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
        ..BASE
    },
    Rule {
        name: "fly_io_token",
        keywords: &["fo1_", "FlyV1 fm", "fm1", "fm2"],
        word_start: true,
        pattern: r"fo1_[A-Za-z0-9_-]{43}|(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/=_-]{100,}",
        max_len: 4096,
        ..BASE
    },
    Rule {
        name: "grafana_cloud_token",
        keywords: &["glc_"],
        word_start: true,
        pattern: r"glc_[A-Za-z0-9+/]{32,}={0,2}",
        ..BASE
    },
    Rule {
        name: "grafana_service_account_token",
        keywords: &["glsa_"],
        word_start: true,
        pattern: r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        ..BASE
    },
    Rule {
        name: "planetscale_token",
        keywords: &["pscale_tkn_", "pscale_pw_", "pscale_oauth_"],
        pattern: r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}",
        ..BASE
    },
    Rule {
        name: "prefect_api_key",
        keywords: &["pnu_"],
        word_start: true,
        pattern: r"pnu_[A-Za-z0-9]{36}",
        ..BASE
    },
    Rule {
        name: "figma_token",
        keywords: &["figd_"],
        word_start: true,
        pattern: r"figd_[A-Za-z0-9_-]{40,}",
        ..BASE
    },
    Rule {
        name: "airtable_pat",
        keywords: &["pat"],
        word_start: true,
        pattern: r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
        ..BASE
    },
    Rule {
        name: "dropbox_token",
        keywords: &["sl."],
        word_start: true,
        pattern: r"sl\.(?:u\.)?[A-Za-z0-9_-]{130,}",
        max_len: 2048,
        ..BASE
    },
    Rule {
        name: "typeform_token",
        keywords: &["tfp_"],
        word_start: true,
        pattern: r"tfp_[A-Za-z0-9_.=-]{44,}",
        ..BASE
    },
    Rule {
        name: "contentful_token",
        keywords: &["CFPAT-"],
        pattern: r"CFPAT-[A-Za-z0-9_-]{43}",
        ..BASE
    },
    Rule {
        name: "onepassword_service_account_token",
        keywords: &["ops_eyJ"],
        pattern: r"ops_eyJ[A-Za-z0-9+/=_-]{250,}",
        max_len: 4096,
        ..BASE
    },
    Rule {
        name: "age_secret_key",
        keywords: &["AGE-SECRET-KEY-1"],
        pattern: r"AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}",
        ..BASE
    },
    Rule {
        name: "facebook_access_token",
        keywords: &["EAA"],
        word_start: true,
        pattern: r"EAA[B-Z][A-Za-z0-9]{80,}",
        max_len: 1024,
        ..BASE
    },
    // ---- Formats and contexts of issue 35
    Rule {
        name: "discord_bot_token_by_shape",
        // The first segment is the bot's user id in base64: a snowflake's
        // first two digits give these first two characters.
        keywords: &["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"],
        word_start: true,
        pattern: r"[MNO][A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}",
        check: Some(crate::shapes::discord_user_id_first),
        examples: &[(
            "TOKEN=MTEyMjMzNDQ1NTY2Nzc4ODk5.qQrTk3.gHjuMuBBM_vDr_GCepKUrVJ9uKlUJQ4_pyxEh6",
            "TOKEN=REDACTED",
        )],
        // The first segment decodes to text, not to a user id.
        near_misses: &["MTogcmVsZWFzZSBub3RlcyB2Mg.abcdef.abcdefghijabcdefghijabcdefghij"],
        ..BASE
    },
    Rule {
        name: "hashicorp_vault_legacy_token",
        // `s.` (service) and 24 characters or `b.` (batch) and more: too plain to
        // stand alone, so only beside a name with `vault` in it, as an
        // assignment, a header or `vault login`.
        keywords: &["vault"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*vault[a-z0-9_-]*)(?:",
            assign!(),
            r"|[ \t]+(?:login[ \t]+)?(?:-{1,2}[A-Za-z_-]+=[^\s]*[ \t]+)*(?:token=)?)(s\.[A-Za-z0-9]{24}(?-u:\b)|b\.[A-Za-z0-9_-]{24,256})"
        ),
        examples: &[
            (
                "VAULT_TOKEN=s.gjwC401HqVjeGEYZ2McYrAQ6",
                "VAULT_TOKEN=REDACTED",
            ),
            (
                "VAULT_TOKEN=b.AAAAAQKrQj2k9fGx7Lm3Pq8ZtNuHBm97ubXQj3BsYj1F",
                "VAULT_TOKEN=REDACTED",
            ),
            (
                "vault login s.gjwC401HqVjeGEYZ2McYrAQ6",
                "vault login REDACTED",
            ),
            (
                "curl -H 'X-Vault-Token: s.gjwC401HqVjeGEYZ2McYrAQ6' https://vault.example.com/v1/kv",
                "curl -H 'X-Vault-Token: REDACTED' https://vault.example.com/v1/kv",
            ),
        ],
        near_misses: &[
            "vault status s.gjwC401HqVjeGEYZ2McYrAQ6",
            "VAULT_ADDR=s.example.com",
        ],
        ..BASE
    },
    Rule {
        name: "onepassword_secret_key",
        // `A3-`, the account's 6 characters, then 26 in groups.
        keywords: &["A3-"],
        word_start: true,
        pattern: r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?-u:\b)",
        examples: &[(
            "secret key: A3-OPLBFG-HLBI5A-36K8S-82ZDY-7R86K-V4S2Q",
            "secret key: REDACTED",
        )],
        near_misses: &["paper size A3-PORTRAIT-LANDSCAPE"],
        ..BASE
    },
    Rule {
        name: "atlassian_classic_token",
        // The older 24-character API tokens, beside a Jira, Confluence or
        // Atlassian name.
        keywords: &["atlassian", "jira", "confluence"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*(?:atlassian|jira|confluence)[a-z0-9_-]*)",
            assign!(),
            r"([A-Za-z0-9]{24})(?-u:\b)"
        ),
        check: Some(has_digit_and_letter),
        examples: &[(
            "JIRA_API_TOKEN=NuHBm97ubXQj3BsYj1FurBLo",
            "JIRA_API_TOKEN=REDACTED",
        )],
        near_misses: &[
            "JIRA_PROJECT=PLATFORM",
            "confluence_space: EngineeringHandbookPages",
        ],
        ..BASE
    },
    Rule {
        name: "facebook_app_access_token",
        // `<app id>|<app secret>`: 15 or 16 digits, a bar, 32 hex; or a
        // client token's `<app id>|<27 to 40 of base64url>`.
        keywords: &["|"],
        anchor: Anchor::Digits,
        word_start: true,
        pattern: r"[0-9]{15,16}\|(?:[0-9a-f]{32}|[A-Za-z0-9_-]{27,40})(?-u:\b)",
        check: Some(facebook_secret_part),
        examples: &[
            (
                "access_token=1234567890123456|d213b216d72c92ba48f856eeb2f5f4bd&fields=id",
                "access_token=REDACTED&fields=id",
            ),
            (
                "client token 481516234200815|Qv7Lm2-xR9kZp4_Wt8Nc3Yb6Hs1Jd",
                "client token REDACTED",
            ),
        ],
        near_misses: &[
            "| 1234567890123456 | d213b216 |",
            "1234567890123456|short",
            "1234567890123456|the_table_column_heading_words",
        ],
        ..BASE
    },
    Rule {
        name: "new_relic_browser_api_key",
        keywords: &["NRJS-"],
        word_start: true,
        pattern: r"NRJS-[a-f0-9]{19}(?-u:\b)",
        examples: &[("key: NRJS-914f792254b9062674b", "key: REDACTED")],
        near_misses: &["NRJS-config"],
        ..BASE
    },
    Rule {
        name: "new_relic_admin_api_key",
        keywords: &["NRAA-"],
        word_start: true,
        pattern: r"NRAA-[a-f0-9]{27}(?-u:\b)",
        examples: &[("NEW_RELIC_ADMIN=NRAA-8440ae851efcacb820fd88bc279", "NEW_RELIC_ADMIN=REDACTED")],
        near_misses: &["NRAA-1234"],
        ..BASE
    },
    Rule {
        name: "new_relic_rest_api_key",
        keywords: &["NRRA-"],
        word_start: true,
        pattern: r"NRRA-[a-f0-9]{42}(?-u:\b)",
        examples: &[(
            "X-Api-Key: NRRA-be2a66c20f4644e58639778ced9632a0ac415af5d5",
            "X-Api-Key: REDACTED",
        )],
        near_misses: &["NRRA-rest-endpoint"],
        ..BASE
    },
    Rule {
        name: "new_relic_insights_query_key",
        keywords: &["NRIQ-"],
        word_start: true,
        pattern: r"NRIQ-[A-Za-z0-9_-]{32}(?-u:\b)",
        examples: &[("query key NRIQ-CSsxzbiPRwrnFUIBYMUh0786gCaGePX6", "query key REDACTED")],
        near_misses: &["NRIQ-keys are read-only"],
        ..BASE
    },
    Rule {
        name: "mailgun_public_key",
        keywords: &["pubkey-"],
        word_start: true,
        pattern: r"pubkey-[0-9a-f]{32}(?-u:\b)",
        examples: &[(
            "MAILGUN_PUBLIC=pubkey-d213b216d72c92ba48f856eeb2f5f4bd",
            "MAILGUN_PUBLIC=REDACTED",
        )],
        near_misses: &["pubkey-path = ~/.ssh/id_ed25519.pub"],
        ..BASE
    },
    Rule {
        name: "mailgun_key_in_context",
        // Beside a Mailgun name: the newer API keys and webhook signing
        // keys (32 hex, two groups of 8), or 32 hex alone.
        keywords: &["mailgun"],
        any_case: true,
        anchor: Anchor::Ident,
        pattern: concat!(
            r"(?i:[a-z0-9_-]*mailgun[a-z0-9_-]*)",
            assign!(),
            r"((?:key-)?[0-9a-f]{32}(?:-[0-9a-f]{8}-[0-9a-f]{8})?)(?-u:\b)"
        ),
        examples: &[(
            "mailgun_signing_key: d213b216d72c92ba48f856eeb2f5f4bd-914f7922-54b90626",
            "mailgun_signing_key: REDACTED",
        )],
        near_misses: &["MAILGUN_DOMAIN=mg.example.com"],
        ..BASE
    },
    Rule {
        name: "sourcegraph_access_token",
        keywords: &["sgp_", "sourcegraph", "src_access_token"],
        any_case: true,
        anchor: Anchor::Ident,
        // `sgp_` tokens (optionally with an instance id or `local_`), or
        // 40 hex beside a Sourcegraph name (the older tokens).
        pattern: concat!(
            r"sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}(?-u:\b)|(?i:[a-z0-9_-]*(?:sourcegraph|src_access_token)[a-z0-9_-]*)",
            assign!(),
            r"([a-f0-9]{40})(?-u:\b)"
        ),
        examples: &[
            (
                "SRC_ACCESS_TOKEN=sgp_fe4a60fe9d3fd4ea_4d7167870519e59af1d9a8fb85594c6632b65548",
                "SRC_ACCESS_TOKEN=REDACTED",
            ),
            (
                "sourcegraph_token: 4d7167870519e59af1d9a8fb85594c6632b65548",
                "sourcegraph_token: REDACTED",
            ),
        ],
        near_misses: &["sgp_local_ tokens are listed under settings"],
        ..BASE
    },
    Rule {
        name: "dynatrace_token",
        // `dt0` + a letter and two digits, a 24-character public part and
        // a 64-character secret.
        keywords: &["dt0"],
        word_start: true,
        pattern: r"dt0[a-z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}",
        examples: &[(
            "DT_API_TOKEN=dt0c01.HLBI5A36K8S82ZDY7R86KV4S.5GW8FW3YA23GOX8K3GPTHP1D0W39BLG5U6G7P82PJNZNQO86Z2MJ2G28NAW0QOMX",
            "DT_API_TOKEN=REDACTED",
        )],
        near_misses: &["dt0c01.HLBI5A36K8S82ZDY7R86KV4S is only the public part"],
        ..BASE
    },
    Rule {
        name: "harness_access_token",
        // Personal (`pat.`) and service account (`sat.`) tokens: account
        // id, token id, secret.
        keywords: &["pat.", "sat."],
        word_start: true,
        pattern: r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}(?-u:\b)",
        examples: &[(
            "x-api-key: pat.6XCiKDdUSHFYkxue8nD2D1.YbBWQAIv3IsdfHTvVdZHBljF.JWgSjw5mCN2V5ct1oWYw",
            "x-api-key: REDACTED",
        )],
        near_misses: &["pat.name.first and sat.score.total"],
        ..BASE
    },
    Rule {
        name: "httpie_auth",
        // HTTPie's `-a user:password` / `--auth user:password`.
        keywords: &["http ", "https "],
        word_start: true,
        pattern: r#"https?(?:[ \t][^\n|;&]{0,256}?)?[ \t](?:-a|--auth)(?:[ \t]+|=)["']?[^\s:"'`]+:([^\s"'`]{3,})"#,
        check: Some(crate::shapes::not_a_variable),
        examples: &[
            (
                "http -a deploy:F5SVgcc7UrN4At POST api.example.com/items",
                "http -a deploy:REDACTED POST api.example.com/items",
            ),
            (
                "https --auth 'ci:Vq8mZ2pL4xR7' example.org/get",
                "https --auth 'ci:REDACTED' example.org/get",
            ),
        ],
        near_misses: &[
            "http -a deploy api.example.com",
            "http --auth-type=jwt api.example.com",
            "http -a ci:$CI_PASSWORD api.example.com",
        ],
        ..BASE
    },
    Rule {
        name: "nexus_npm_token",
        // Sonatype Nexus's npm tokens: `NpmToken.` and a UUID.
        keywords: &["NpmToken."],
        pattern: r"NpmToken\.([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})",
        max_len: 64,
        examples: &[(
            "echo NpmToken.5d1c9e2a-7b4f-4e3a-9c8d-1f2e3a4b5c6d | base64",
            "echo NpmToken.REDACTED | base64",
        )],
        near_misses: &["example: NpmToken.00000000-0000-0000-0000-000000000000"],
        ..BASE
    },
    Rule {
        name: "npm_registry_credential",
        // `.npmrc` (`_auth=`, `//host/:_password=`; `_authToken=` is a
        // `secret_assignment`) and `.yarnrc.yml` (`npmAuthToken:`,
        // `npmAuthIdent:`).
        keywords: &["_auth", "_password", "npmAuthToken", "npmAuthIdent"],
        word_start: true,
        pattern: r#"(?:_auth|_password|npmAuth(?:Token|Ident))["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9+/=._~-]{6,})"#,
        check: Some(crate::shapes::not_a_variable),
        examples: &[
            (
                "//registry.example.com/:_password=VnE4IW1aMnBMNHhS",
                "//registry.example.com/:_password=REDACTED",
            ),
            (
                "_auth=ZGVwbG95OlZxOCFtWjJwTDR4\nalways-auth=true",
                "_auth=REDACTED\nalways-auth=true",
            ),
            (
                "  npmAuthToken: 3b1f5c8e-9a2d-4e7f-b6c1-0d9e8f7a6b5c",
                "  npmAuthToken: REDACTED",
            ),
        ],
        near_misses: &[
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
            "set the _authToken key in .npmrc",
            "in prose: `_auth=`/`_password=`, both base64",
        ],
        ..BASE
    },
    Rule {
        name: "docker_config_auth",
        // `~/.docker/config.json`: `"auth"` is base64 of `user:password`.
        keywords: &["\"auth\""],
        pattern: r#""auth"[ \t]*:[ \t]*"([A-Za-z0-9+/]{8,}={0,2})""#,
        check: Some(crate::shapes::docker_auth),
        examples: &[(
            r#"{"auths": {"registry.example.com": {"auth": "ZGVwbG95OlZxOCFtWjJwTDR4"}}}"#,
            r#"{"auths": {"registry.example.com": {"auth": "REDACTED"}}}"#,
        )],
        near_misses: &[r#"{"auth": "required", "scheme": "cmVxdWlyZWQ="}"#],
        ..BASE
    },
    Rule {
        name: "kubernetes_secret_json",
        // The same manifest in JSON, also escaped inside a JSON string
        // (see `kube_json.rs`; the keys stay).
        keywords: &[
            "\"kind\": \"Secret\"",
            "\"kind\":\"Secret\"",
            "\\\"kind\\\": \\\"Secret\\\"",
            "\\\"kind\\\":\\\"Secret\\\"",
        ],
        pattern: "",
        scan: Some(crate::kube_json::secret_values),
        examples: &[(
            r#"{"kind": "Secret", "data": {"password": "VnE4IW1aMnBMNHhS"}}"#,
            r#"{"kind": "Secret", "data": {"password": "REDACTED"}}"#,
        )],
        near_misses: &[r#"{"kind": "ConfigMap", "data": {"mode": "VnE4IW1aMnBMNHhS"}}"#],
        ..BASE
    },
    Rule {
        name: "dotnet_config_secret",
        // `<add key="…Password…" value="…"/>` in `app.config` / `web.config`.
        keywords: &["<add "],
        pattern: r#"<add[ \t]+key[ \t]*=[ \t]*["'][A-Za-z0-9_.:-]{0,64}?(?i:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|connection[_-]?string)[A-Za-z0-9_.:-]{0,64}["'][ \t]+value[ \t]*=[ \t]*["']([^"'<>]{4,512})["']"#,
        check: Some(password_shaped),
        max_len: 768,
        examples: &[(
            r#"<add key="DbPassword" value="F5SVgcc7UrN4At" />"#,
            r#"<add key="DbPassword" value="REDACTED" />"#,
        )],
        near_misses: &[
            r#"<add key="PasswordPolicy" value="strict" />"#,
            r#"<add key="Theme" value="F5SVgcc7UrN4At" />"#,
        ],
        ..BASE
    },
    Rule {
        name: "kubernetes_secret",
        // A `kind: Secret` manifest: every value under its `data:` and
        // `stringData:` (see `kube.rs`; the keys stay).
        // Quoted or lower case too (`kind: 'Secret'`, `kind: secret`).
        keywords: &[
            "kind: Secret",
            "kind: secret",
            "kind: 'Secret'",
            "kind: \"Secret\"",
            "kind: 'secret'",
            "kind: \"secret\"",
        ],
        pattern: "",
        scan: Some(crate::kube::secret_values),
        examples: &[
            (
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: c3ZjLXJlYWRlcg==\n  password: VnE4IW1aMnBMNHhS\n",
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: REDACTED\n  password: REDACTED\n",
            ),
            (
                "apiVersion: v1\ndata:\n  token: VnE4IW1aMnBMNHhS\nkind: Secret\nmetadata:\n  name: api\n",
                "apiVersion: v1\ndata:\n  token: REDACTED\nkind: Secret\nmetadata:\n  name: api\n",
            ),
        ],
        near_misses: &[
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  mode: VnE4IW1aMnBMNHhS\n",
            "kind: SecretStore\nspec:\n  data:\n    region: VnE4IW1aMnBMNHhS\n",
        ],
        ..BASE
    },
    Rule {
        name: "cli_password_flag",
        // `-p <password>` of tools where `-p` is the password: `docker
        // login` (and podman, nerdctl, `helm registry login`), `sshpass`;
        // MySQL's glued `-p<password>` (a bare `-p` prompts).
        keywords: &[
            "docker login",
            "podman login",
            "nerdctl login",
            "registry login",
            "sshpass ",
            "mysql",
        ],
        pattern: r#"(?:(?:(?:(?:docker|podman|nerdctl)[ \t]+|helm[ \t]+registry[ \t]+)login|sshpass)(?:[ \t][^\n|;&]{0,256}?)?[ \t]-p(?:[ \t]+|=)["']?|mysql(?:dump|admin|sh)?(?:[ \t][^\n|;&]{0,256}?)?[ \t]-p)([^\s"'`-][^\s"'`]{2,})"#,
        check: Some(cli_password),
        max_len: 512,
        examples: &[
            (
                "docker login -u deploy -p F5SVgcc7UrN4At registry.example.com",
                "docker login -u deploy -p REDACTED registry.example.com",
            ),
            ("sshpass -p 'Vq8mZ2pL4xR7' ssh deploy@host", "sshpass -p 'REDACTED' ssh deploy@host"),
            (
                "mysql -h db.example.com -uroot -pF5SVgcc7UrN4At app",
                "mysql -h db.example.com -uroot -pREDACTED app",
            ),
        ],
        near_misses: &[
            "apt-get install mysql-server -purge",
            "docker login -u deploy --password-stdin registry.example.com",
            "mysql -u root -p app",
            "docker login -p $REGISTRY_PASSWORD registry.example.com",
        ],
        ..BASE
    },
    Rule {
        name: "http_client_basic_auth",
        // Python's `auth=("user", "password")`, `HTTPBasicAuth("user",
        // "password")` (requests, httpx), aiohttp's `BasicAuth(…)`.
        keywords: &["auth=(", "auth = (", "BasicAuth(", "DigestAuth("],
        pattern: r#"(?:auth[ \t]*=[ \t]*\(|(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|DigestAuth)\()[ \t]*["'][^"'\n]{1,64}["'][ \t]*,[ \t]*["']([^"'\n]{3,128})["']"#,
        check: Some(password_shaped),
        examples: &[
            (
                r#"requests.get(url, auth=("deploy", "F5SVgcc7UrN4At"))"#,
                r#"requests.get(url, auth=("deploy", "REDACTED"))"#,
            ),
            (
                r#"httpx.get(url, auth=httpx.DigestAuth('ci', 'Vq8mZ2pL4xR7'))"#,
                r#"httpx.get(url, auth=httpx.DigestAuth('ci', 'REDACTED'))"#,
            ),
        ],
        near_misses: &[
            r#"auth=("deploy", os.environ["PASSWORD"])"#,
            r#"auth = ("user", "pass")"#,
        ],
        ..BASE
    },
    // ---- Structural formats
    Rule {
        name: "jwt",
        keywords: &["eyJ"],
        // The signature may be missing (`alg: none`), with or without its
        // dot; without one the header must be a JOSE header.
        pattern: r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?",
        check: Some(crate::shapes::jwt_like),
        max_len: 8192,
        examples: &[(
            "jwt = eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhZ2VudC03Iiwicm9sZSI6ImFkbWluIn0",
            "jwt = REDACTED",
        )],
        // Two base64 JSON payloads, no header.
        near_misses: &["eyJzdWIiOiJhZ2VudC03In0.eyJzdWIiOiJhZ2VudC03In0"],
        ..BASE
    },
    Rule {
        name: "private_key_rsa",
        keywords: &["-----BEGIN RSA "],
        pattern: pem!("RSA "),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "private_key_ec",
        keywords: &["-----BEGIN EC "],
        pattern: pem!("EC "),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "private_key_dsa",
        keywords: &["-----BEGIN DSA "],
        pattern: pem!("DSA "),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "private_key_pkcs8",
        keywords: &["-----BEGIN PRIVATE "],
        pattern: pem!(""),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "private_key_encrypted",
        keywords: &["-----BEGIN ENCRYPTED "],
        pattern: pem!("ENCRYPTED "),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "private_key_openssh",
        keywords: &["-----BEGIN OPENSSH "],
        pattern: pem!("OPENSSH "),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "private_key_pgp",
        keywords: &["-----BEGIN PGP PRIVATE"],
        pattern: pem!("PGP "),
        max_len: 16384,
        ..BASE
    },
    Rule {
        name: "http_bearer_token",
        keywords: &["bearer "],
        any_case: true,
        pattern: r"(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{20,}=*)",
        check: Some(has_digit_and_letter),
        max_len: 8192,
        ..BASE
    },
    // ---- Keyword + value: a secret's name, then a value of a secret's shape
    // Defined in keyword_value.rs (the generic layers).
    crate::keyword_value::SECRET_ASSIGNMENT,
    crate::keyword_value::SHORT_PASSWORD_ASSIGNMENT,
    Rule {
        name: "curl_user_password",
        keywords: &["curl "],
        // `-u`/`--user` and the proxy's `-U`/`--proxy-user`; a short flag
        // may be glued to its value (`-uci:secret`).
        // Lines continued with `\` belong to the command; the user may be
        // empty (`-u ":secret"`) and each half quoted on its own
        // (`--user "id":"secret"`).
        pattern: r#"curl(?:[ \t](?:[^\n\\|;&]|\\\r?\n|\\[^\n]){0,384}?)?[ \t\n](?:-[uU](?:[ \t]+|=)?|--(?:proxy-)?user(?:[ \t]+|=))["']?(?:[^\s:"'-][^\s:"'`]*)?["']?:["']?([^\s"'`]{3,})"#,
        check: Some(crate::shapes::not_a_stand_in_password),
        max_len: 640,
        examples: &[
            (
                "curl -uci:F5SVgcc7UrN4At https://api.example.com",
                "curl -uci:REDACTED https://api.example.com",
            ),
            (
                "curl --proxy-user proxy:Vq8mZ2pL4xR7 -x http://proxy.example.com:3128 https://example.com",
                "curl --proxy-user proxy:REDACTED -x http://proxy.example.com:3128 https://example.com",
            ),
        ],
        near_misses: &[
            "curl -u ci https://api.example.com",
            "curl --user-agent ua:1.0 https://example.com",
            "curl -u admin:test https://localhost:9200",
            "curl -u \"$USER:$PASS\" https://api.example.com",
            "curl --user svc:[PASSWORD] https://api.example.com",
            "curl -u \"aaa:bbb\" https://api.example.com",
        ],
        ..BASE
    },
    Rule {
        name: "cli_password_option",
        // wget, httpie-style and most tools: `--password=…`, `--http-password …`.
        keywords: &["password"],
        anchor: Anchor::Ident,
        pattern: r#"--(?:http-|ftp-|proxy-|db-)?password(?:=|[ \t]+)["']?([A-Za-z0-9][^\s"'`]{2,})"#,
        check: Some(not_a_url),
        max_len: 320,
        generic: true,
        ..BASE
    },
    Rule {
        name: "netrc_password",
        // `machine <host>` or the `default` entry.
        keywords: &["machine ", "default ", "default\n"],
        pattern: r"(?:machine[ \t]+\S+|default)\s+login[ \t]+\S+\s+password[ \t]+(\S{3,})",
        examples: &[(
            "default login anonymous password F5SVgcc7UrN4At\n",
            "default login anonymous password REDACTED\n",
        )],
        near_misses: &["default login shell is bash; password prompts follow"],
        check: Some(password_shaped),
        max_len: 512,
        ..BASE
    },
    Rule {
        name: "http_authorization_token",
        // `Authorization: Token …`, `Api-Token …`, or a bare value
        // (`Bearer` and `Basic` have their own rules).
        keywords: &["authorization"],
        any_case: true,
        pattern: r#"(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?:(?i:token|api-token|apikey|sso-key|key)[ \t]+)?([A-Za-z0-9._~+/=:-]{16,})"#,
        check: Some(has_digit_and_letter),
        max_len: 2048,
        generic: true,
        glue_after_keyword: true,
        ..BASE
    },
    Rule {
        name: "http_basic_auth",
        keywords: &["authorization"],
        any_case: true,
        pattern: r#"(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}={0,2})"#,
        ..BASE
    },
    Rule {
        name: "xml_secret_value",
        // The value of an XML element or attribute named after a secret
        // (see `xml.rs`; the names stay).
        keywords: &["password", "passwd", "secret", "token", "apikey", "api_key", "apiKey"],
        any_case: true,
        pattern: "",
        scan: Some(crate::xml::secret_values),
        generic: true,
        examples: &[
            (
                "<db_password>Qm7#zR2vK9x</db_password>",
                "<db_password>REDACTED</db_password>",
            ),
            (
                r#"<entry name="smtp_password" value="Lp3!vX8qN2w"/>"#,
                r#"<entry name="smtp_password" value="REDACTED"/>"#,
            ),
        ],
        near_misses: &[
            "<password_policy>strict</password_policy>",
            r#"<entry name="password" value="${SMTP_PASSWORD}"/>"#,
        ],
        ..BASE
    },
    // The least specific rule, last: a span it shares with any other rule
    // is named after that one. Defined in keyword_value.rs.
    crate::keyword_value::SECRET_KEYWORD_VALUE,
];
