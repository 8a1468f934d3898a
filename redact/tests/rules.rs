//! Layer 2: every known token format has a made-up secret of its shape that
//! is redacted (and reported under the rule's name) and a near miss that is
//! not. The secrets are generated here, deterministically; none is real.

use agent_checkpoint_redact::{token_rule_examples, token_rule_names, Redactor};

const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";
const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LOWER_DIGITS: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

/// A deterministic stream of made-up characters (xorshift).
struct Gen(u64);

impl Gen {
    fn new(name: &str) -> Gen {
        Gen(name.bytes().fold(0x9E37_79B9_7F4A_7C15, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
        }))
    }
    /// `n` random characters of `alphabet`: a made-up secret's body.
    fn r(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                a[(self.0 % a.len() as u64) as usize] as char
            })
            .collect()
    }
}

/// `n` characters of a low-entropy filler of `alphabet` (first 4 symbols):
/// the right shape for a near miss, never a high-entropy run.
fn low(alphabet: &str, n: usize) -> String {
    alphabet.chars().take(4).cycle().take(n).collect()
}

struct Case {
    name: &'static str,
    text: String,
    secret: String,
    near_miss: String,
}

fn case(name: &'static str, before: &str, secret: String, after: &str, near_miss: String) -> Case {
    Case {
        name,
        text: format!("{before}{secret}{after}"),
        secret,
        near_miss,
    }
}

#[allow(clippy::vec_init_then_push)]
fn cases() -> Vec<Case> {
    let mut c = Vec::new();
    macro_rules! g {
        ($name:literal) => {
            Gen::new($name)
        };
    }
    let ctx = "value: ";
    let end = " (end)";

    let mut x = g!("aws_access_key_id");
    c.push(case(
        "aws_access_key_id",
        ctx,
        format!("AKIA{}", x.r("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
        end,
        format!("{ctx}AKIA{}", low(BASE32, 15)),
    ));
    let mut x = g!("aws_secret_access_key");
    c.push(case(
        "aws_secret_access_key",
        "aws_secret_access_key = ",
        x.r(B64, 40),
        "\n",
        format!("aws_secret_access_key = {}\n", low("ab1/", 39)),
    ));
    let mut x = g!("aws_session_token");
    c.push(case(
        "aws_session_token",
        "\"SessionToken\": \"",
        x.r(B64, 180),
        "\"",
        format!("\"SessionToken\": \"{}\"", low("ab1/", 99)),
    ));
    let mut x = g!("gcp_api_key");
    c.push(case(
        "gcp_api_key",
        ctx,
        format!("AIza{}", x.r(URLSAFE, 35)),
        end,
        format!("{ctx}AIza{}", low(AN, 34)),
    ));
    let mut x = g!("gcp_oauth_client_secret");
    c.push(case(
        "gcp_oauth_client_secret",
        ctx,
        format!("GOCSPX-{}", x.r(URLSAFE, 28)),
        end,
        format!("{ctx}GOCSPX-{}", low(AN, 27)),
    ));
    let mut x = g!("gcp_oauth_access_token");
    c.push(case(
        "gcp_oauth_access_token",
        ctx,
        format!("ya29.{}", x.r(URLSAFE, 80)),
        end,
        format!("{ctx}ya29.{}", low(AN, 29)),
    ));
    let mut x = g!("gcp_oauth_refresh_token");
    c.push(case(
        "gcp_oauth_refresh_token",
        ctx,
        format!("1//0{}", x.r(URLSAFE, 60)),
        end,
        format!("{ctx}1//0{}", low(AN, 39)),
    ));
    let mut x = g!("gcp_service_account_private_key");
    let body = format!("{}\\n{}", x.r(B64, 64), x.r(B64, 40));
    c.push(case(
        "gcp_service_account_private_key",
        r#"{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n"#,
        body,
        r#"\n-----END PRIVATE KEY-----\n", "client_email": "svc@proj.iam.gserviceaccount.com"}"#,
        r#"{"private_key": "-----BEGIN PRIVATE KEY-----"}"#.to_owned(),
    ));
    let mut x = g!("azure_storage_connection_string");
    c.push(case(
        "azure_storage_connection_string",
        "conn=",
        format!("DefaultEndpointsProtocol=https;AccountName=acct01;AccountKey={}==;EndpointSuffix=core.windows.net", x.r(B64, 86)),
        end,
        format!("DefaultEndpointsProtocol=https;AccountName=acct01;AccountKey={}", low(AN, 40)),
    ));
    let mut x = g!("azure_storage_account_key");
    c.push(case(
        "azure_storage_account_key",
        "AccountKey=",
        format!("{}==", x.r(B64, 86)),
        ";",
        format!("AccountKey={}==;", low(AN, 85)),
    ));
    let mut x = g!("azure_sas_token");
    c.push(case(
        "azure_sas_token",
        "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&se=2030-01-01&sig=",
        format!("{}%3D", x.r(AN, 43)),
        " ",
        "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig=abcd%3D".to_owned(),
    ));
    let mut x = g!("azure_shared_access_key");
    c.push(case(
        "azure_shared_access_key",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=",
        format!("{}=", x.r(B64, 43)),
        ";",
        format!("SharedAccessKey={}=", low(AN, 20)),
    ));
    let mut x = g!("azure_ad_client_secret");
    c.push(case(
        "azure_ad_client_secret",
        ctx,
        format!("{}8Q~{}", x.r(AN, 3), x.r(URLSAFE, 34)),
        end,
        format!("{ctx}abc8Q~{}", low(AN, 20)),
    ));
    for (name, prefix) in [
        ("github_pat", "ghp_"),
        ("github_oauth_token", "gho_"),
        ("github_user_to_server_token", "ghu_"),
        ("github_app_installation_token", "ghs_"),
        ("github_refresh_token", "ghr_"),
    ] {
        let mut x = Gen::new(name);
        c.push(case(
            name,
            ctx,
            format!("{prefix}{}", x.r(AN, 36)),
            end,
            format!("{ctx}{prefix}{}", low(AN, 35)),
        ));
    }
    let mut x = g!("github_fine_grained_pat");
    c.push(case(
        "github_fine_grained_pat",
        ctx,
        format!("github_pat_{}_{}", x.r(AN, 22), x.r(AN, 59)),
        end,
        format!("{ctx}github_pat_{}_{}", low(AN, 22), low(AN, 58)),
    ));
    for (name, prefix, alphabet, n) in [
        ("gitlab_pat", "glpat-", URLSAFE, 20),
        ("gitlab_deploy_token", "gldt-", URLSAFE, 20),
        ("gitlab_pipeline_trigger_token", "glptt-", HEX, 40),
        ("gitlab_runner_token", "glrt-", URLSAFE, 20),
        ("gitlab_runner_registration_token", "GR1348941", URLSAFE, 20),
        ("gitlab_oauth_app_secret", "gloas-", URLSAFE, 64),
        ("gitlab_feed_token", "glft-", URLSAFE, 20),
        ("gitlab_scim_token", "glsoat-", URLSAFE, 20),
        ("gitlab_agent_token", "glagent-", URLSAFE, 50),
        ("gitlab_incoming_mail_token", "glimt-", URLSAFE, 25),
        ("gitlab_feature_flag_client_token", "glffct-", URLSAFE, 20),
        ("atlassian_api_token", "ATATT", URLSAFE, 180),
        ("bitbucket_app_password", "ATBB", AN, 28),
        ("npm_access_token", "npm_", AN, 36),
        ("crates_io_api_token", "cio", AN, 32),
        ("dockerhub_token", "dckr_pat_", URLSAFE, 27),
        ("rubygems_api_key", "rubygems_", HEX, 48),
        ("nuget_api_key", "oy2", LOWER_DIGITS, 43),
        ("mailgun_api_key", "key-", HEX, 32),
        ("twilio_api_key", "SK", HEX, 32),
        ("twilio_account_sid", "AC", HEX, 32),
        ("stripe_secret_key", "sk_live_", AN, 24),
        ("stripe_restricted_key", "rk_live_", AN, 24),
        ("stripe_publishable_key", "pk_live_", AN, 24),
        ("stripe_webhook_secret", "whsec_", AN, 32),
        ("square_access_token", "EAAA", URLSAFE, 60),
        ("square_oauth_secret", "sq0csp-", URLSAFE, 43),
        ("shippo_api_token", "shippo_live_", HEX, 40),
        ("easypost_api_key", "EZAK", AN, 54),
        ("openai_project_key", "sk-proj-", URLSAFE, 100),
        ("openai_service_account_key", "sk-svcacct-", URLSAFE, 100),
        ("openai_admin_key", "sk-admin-", URLSAFE, 100),
        ("anthropic_api_key", "sk-ant-api03-", URLSAFE, 95),
        ("anthropic_admin_key", "sk-ant-admin01-", URLSAFE, 95),
        ("openrouter_api_key", "sk-or-v1-", HEX, 64),
        ("huggingface_token", "hf_", LETTERS, 34),
        ("huggingface_org_token", "api_org_", LETTERS, 34),
        ("groq_api_key", "gsk_", AN, 52),
        ("replicate_api_token", "r8_", AN, 37),
        ("perplexity_api_key", "pplx-", AN, 48),
        ("xai_api_key", "xai-", AN, 80),
        ("shopify_access_token", "shpat_", HEX, 32),
        ("shopify_custom_app_token", "shpca_", HEX, 32),
        ("shopify_private_app_token", "shppa_", HEX, 32),
        ("shopify_shared_secret", "shpss_", HEX, 32),
        ("linear_api_key", "lin_api_", AN, 40),
        ("new_relic_user_api_key", "NRAK-", UPPER_DIGITS, 27),
        ("new_relic_insert_key", "NRII-", URLSAFE, 32),
        ("sentry_org_token", "sntrys_", URLSAFE, 80),
        ("sentry_user_token", "sntryu_", HEX, 64),
        ("digitalocean_pat", "dop_v1_", HEX, 64),
        ("digitalocean_oauth_token", "doo_v1_", HEX, 64),
        ("digitalocean_refresh_token", "dor_v1_", HEX, 64),
        ("supabase_access_token", "sbp_", HEX, 40),
        ("supabase_secret_key", "sb_secret_", URLSAFE, 31),
        ("pulumi_access_token", "pul-", HEX, 40),
        ("doppler_token", "dp.pt.", AN, 43),
        ("hashicorp_vault_token", "hvs.", URLSAFE, 90),
        ("databricks_token", "dapi", HEX, 32),
        ("grafana_cloud_token", "glc_", AN, 60),
        ("planetscale_token", "pscale_tkn_", URLSAFE, 43),
        ("prefect_api_key", "pnu_", AN, 36),
        ("figma_token", "figd_", URLSAFE, 40),
        ("dropbox_token", "sl.", URLSAFE, 140),
        ("typeform_token", "tfp_", AN, 44),
        ("contentful_token", "CFPAT-", URLSAFE, 43),
        ("onepassword_service_account_token", "ops_eyJ", B64, 300),
        ("age_secret_key", "AGE-SECRET-KEY-1", BECH32, 58),
        ("facebook_access_token", "EAAG", AN, 150),
        ("netlify_token", "nfp_", AN, 40),
        ("fly_io_token", "FlyV1 fm2_", B64, 150),
    ] {
        let mut x = Gen::new(name);
        // The near miss: one character short, low entropy.
        let min = match name {
            "gitlab_pat"
            | "gitlab_deploy_token"
            | "gitlab_runner_token"
            | "gitlab_feed_token"
            | "gitlab_scim_token"
            | "gitlab_feature_flag_client_token"
            | "gitlab_runner_registration_token" => 20,
            "atlassian_api_token" => 60,
            "sentry_org_token" => 50,
            "hashicorp_vault_token" => 24,
            "grafana_cloud_token" => 32,
            "planetscale_token" => 32,
            "dropbox_token" => 130,
            "onepassword_service_account_token" => 250,
            "facebook_access_token" => 80,
            "netlify_token" => 36,
            "fly_io_token" => 100,
            "openai_project_key" | "openai_service_account_key" | "openai_admin_key" => 40,
            "anthropic_api_key" | "anthropic_admin_key" => 20,
            "doppler_token" | "square_oauth_secret" => 40,
            _ => n,
        };
        let near_alphabet = if alphabet == HEX || alphabet == LOWER_DIGITS {
            "abc1"
        } else if alphabet == UPPER_DIGITS || alphabet == BECH32 {
            "QPZR"
        } else {
            "abAB"
        };
        c.push(case(
            name,
            ctx,
            format!("{prefix}{}", x.r(alphabet, n)),
            end,
            format!("{ctx}{prefix}{}", low(near_alphabet, min - 1)),
        ));
    }
    let mut x = g!("gitlab_ci_build_token");
    c.push(case(
        "gitlab_ci_build_token",
        ctx,
        format!("glcbt-64_{}", x.r(URLSAFE, 20)),
        end,
        format!("{ctx}glcbt-{}", low(AN, 10)),
    ));
    let mut x = g!("pypi_api_token");
    c.push(case(
        "pypi_api_token",
        ctx,
        format!("pypi-AgEIcHlwaS5vcmc{}", x.r(URLSAFE, 70)),
        end,
        format!("{ctx}pypi-AgEI{}", low(AN, 40)),
    ));
    let mut x = g!("slack_bot_token");
    c.push(case(
        "slack_bot_token",
        ctx,
        format!(
            "xoxb-{}-{}-{}",
            x.r(DIGITS, 12),
            x.r(DIGITS, 13),
            x.r(AN, 24)
        ),
        end,
        format!("{ctx}xoxb-12345-abc"),
    ));
    let mut x = g!("slack_user_token");
    c.push(case(
        "slack_user_token",
        ctx,
        format!(
            "xoxp-{}-{}-{}-{}",
            x.r(DIGITS, 12),
            x.r(DIGITS, 12),
            x.r(DIGITS, 13),
            x.r(HEX, 32)
        ),
        end,
        format!("{ctx}xoxp-1234-5678"),
    ));
    let mut x = g!("slack_app_token");
    c.push(case(
        "slack_app_token",
        ctx,
        format!(
            "xapp-1-A0{}-{}-{}",
            x.r(UPPER_DIGITS, 9),
            x.r(DIGITS, 13),
            x.r(HEX, 64)
        ),
        end,
        format!("{ctx}xapp-1-ABC-123-abc"),
    ));
    let mut x = g!("slack_legacy_token");
    c.push(case(
        "slack_legacy_token",
        ctx,
        format!("xoxs-{}-{}", x.r(DIGITS, 10), x.r(AN, 30)),
        end,
        format!("{ctx}xoxs-12-abc"),
    ));
    let mut x = g!("slack_config_token");
    c.push(case(
        "slack_config_token",
        ctx,
        format!("xoxe.xoxp-1-{}", x.r(AN, 150)),
        end,
        format!("{ctx}xoxe.xoxp-1-{}", low(AN, 99)),
    ));
    let mut x = g!("slack_webhook_url");
    c.push(case(
        "slack_webhook_url",
        "post to ",
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            x.r(UPPER_DIGITS, 8),
            x.r(UPPER_DIGITS, 8),
            x.r(AN, 24)
        ),
        end,
        "see https://hooks.slack.com/services/ for setup".to_owned(),
    ));
    let mut x = g!("discord_bot_token");
    c.push(case(
        "discord_bot_token",
        "DISCORD_BOT_TOKEN: ",
        format!(
            "M{}.{}.{}",
            x.r(URLSAFE, 25),
            x.r(URLSAFE, 6),
            x.r(URLSAFE, 38)
        ),
        "\n",
        "discord token: Mabc.def.ghi".to_owned(),
    ));
    let mut x = g!("discord_webhook_url");
    c.push(case(
        "discord_webhook_url",
        "hook ",
        format!(
            "https://discord.com/api/webhooks/{}/{}",
            x.r(DIGITS, 18),
            x.r(URLSAFE, 68)
        ),
        end,
        "see https://discord.com/api/webhooks/123/abc".to_owned(),
    ));
    let mut x = g!("telegram_bot_token");
    c.push(case(
        "telegram_bot_token",
        "https://api.telegram.org/bot",
        format!("{}:AA{}", x.r(DIGITS, 10), x.r(URLSAFE, 33)),
        "/getMe",
        "ratio 123:AAabc".to_owned(),
    ));
    let mut x = g!("sendgrid_api_key");
    c.push(case(
        "sendgrid_api_key",
        ctx,
        format!("SG.{}.{}", x.r(URLSAFE, 22), x.r(URLSAFE, 43)),
        end,
        format!("{ctx}SG.abc.def"),
    ));
    let mut x = g!("mailchimp_api_key");
    c.push(case(
        "mailchimp_api_key",
        ctx,
        format!("{}-us21", x.r(HEX, 32)),
        end,
        format!("{ctx}{}-us21", low("abc1", 31)),
    ));
    let mut x = g!("brevo_api_key");
    c.push(case(
        "brevo_api_key",
        ctx,
        format!("xkeysib-{}-{}", x.r(HEX, 64), x.r(AN, 16)),
        end,
        format!("{ctx}xkeysib-{}-abc", low("abc1", 63)),
    ));
    let mut x = g!("paypal_braintree_access_token");
    c.push(case(
        "paypal_braintree_access_token",
        ctx,
        format!(
            "access_token$production${}${}",
            x.r(LOWER_DIGITS, 16),
            x.r(HEX, 32)
        ),
        end,
        format!("{ctx}access_token$production$abc$def"),
    ));
    let mut x = g!("flutterwave_secret_key");
    c.push(case(
        "flutterwave_secret_key",
        ctx,
        format!("FLWSECK-{}-X", x.r(AN, 32)),
        end,
        format!("{ctx}FLWSECK-{}-X", low(AN, 31)),
    ));
    let mut x = g!("openai_api_key");
    c.push(case(
        "openai_api_key",
        ctx,
        format!("sk-{}T3BlbkFJ{}", x.r(AN, 20), x.r(AN, 20)),
        end,
        format!("{ctx}sk-{}T3BlbkFJ{}", low(AN, 19), low(AN, 20)),
    ));
    let mut x = g!("langsmith_api_key");
    c.push(case(
        "langsmith_api_key",
        ctx,
        format!("lsv2_pt_{}_{}", x.r(HEX, 32), x.r(HEX, 10)),
        end,
        format!("{ctx}lsv2_pt_{}_{}", low("abc1", 31), low("abc1", 10)),
    ));
    let mut x = g!("notion_token");
    c.push(case(
        "notion_token",
        ctx,
        format!("ntn_{}{}", x.r(DIGITS, 11), x.r(AN, 35)),
        end,
        format!("{ctx}ntn_{}", low(AN, 30)),
    ));
    let mut x = g!("datadog_api_key");
    c.push(case(
        "datadog_api_key",
        "DD_API_KEY: ",
        x.r(HEX, 32),
        "\n",
        format!("DD_API_KEY: {}\n", low("abc1", 31)),
    ));
    let mut x = g!("datadog_app_key");
    c.push(case(
        "datadog_app_key",
        "DD_APP_KEY: ",
        x.r(HEX, 40),
        "\n",
        format!("DD_APP_KEY: {}\n", low("abc1", 39)),
    ));
    let mut x = g!("new_relic_license_key");
    c.push(case(
        "new_relic_license_key",
        ctx,
        format!("{}NRAL", x.r(HEX, 36)),
        end,
        format!("{ctx}{}NRAL", low("abc1", 35)),
    ));
    let mut x = g!("heroku_api_key");
    let uuid = format!(
        "{}-{}-{}-{}-{}",
        x.r(HEX, 8),
        x.r(HEX, 4),
        x.r(HEX, 4),
        x.r(HEX, 4),
        x.r(HEX, 12)
    );
    c.push(case(
        "heroku_api_key",
        "HEROKU_API_KEY: ",
        uuid.clone(),
        "\n",
        format!("heroku app {uuid}\n"),
    ));
    let mut x = g!("vercel_token");
    c.push(case(
        "vercel_token",
        "VERCEL_TOKEN: ",
        x.r(AN, 24),
        "\n",
        format!("VERCEL_TOKEN: {}\n", low(AN, 23)),
    ));
    let mut x = g!("terraform_cloud_token");
    c.push(case(
        "terraform_cloud_token",
        ctx,
        format!("{}.atlasv1.{}", x.r(AN, 14), x.r(URLSAFE, 67)),
        end,
        format!("{ctx}{}.atlasv1.{}", low(AN, 14), low(AN, 59)),
    ));
    let mut x = g!("postman_api_key");
    c.push(case(
        "postman_api_key",
        ctx,
        format!("PMAK-{}-{}", x.r(HEX, 24), x.r(HEX, 34)),
        end,
        format!("{ctx}PMAK-{}-abc", low("abc1", 23)),
    ));
    let mut x = g!("mapbox_secret_token");
    c.push(case(
        "mapbox_secret_token",
        ctx,
        format!(
            "sk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjbHh5ejEyMzQifQ.{}",
            x.r(URLSAFE, 22)
        ),
        end,
        format!("{ctx}sk.eyJ{}.abc", low(AN, 19)),
    ));
    let mut x = g!("algolia_admin_key");
    c.push(case(
        "algolia_admin_key",
        "ALGOLIA_ADMIN_KEY: ",
        x.r(HEX, 32),
        "\n",
        format!("ALGOLIA_ADMIN_KEY: {}\n", low("abc1", 31)),
    ));
    let mut x = g!("cloudflare_api_token");
    c.push(case(
        "cloudflare_api_token",
        "CLOUDFLARE_API_TOKEN: ",
        x.r(URLSAFE, 40),
        "\n",
        format!("CLOUDFLARE_API_TOKEN: {}\n", low(AN, 36)),
    ));
    let mut x = g!("cloudflare_origin_ca_key");
    c.push(case(
        "cloudflare_origin_ca_key",
        ctx,
        format!("v1.0-{}-{}", x.r(HEX, 24), x.r(HEX, 146)),
        end,
        format!("{ctx}v1.0-{}-{}", low("abc1", 24), low("abc1", 100)),
    ));
    let mut x = g!("grafana_service_account_token");
    c.push(case(
        "grafana_service_account_token",
        ctx,
        format!("glsa_{}_{}", x.r(AN, 32), x.r(HEX, 8)),
        end,
        format!("{ctx}glsa_{}_{}", low(AN, 31), low("abc1", 8)),
    ));
    let mut x = g!("airtable_pat");
    c.push(case(
        "airtable_pat",
        ctx,
        format!("pat{}.{}", x.r(AN, 14), x.r(HEX, 64)),
        end,
        format!("{ctx}pat{}.{}", low(AN, 14), low("abc1", 63)),
    ));
    let mut x = g!("jwt");
    c.push(case(
        "jwt",
        "Authorization token ",
        format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{}.{}",
            x.r(URLSAFE, 40),
            x.r(URLSAFE, 43)
        ),
        end,
        "eyJhbGciOiJIUzI1NiJ9.notjwt".to_owned(),
    ));
    for (name, kind) in [
        ("private_key_rsa", "RSA "),
        ("private_key_ec", "EC "),
        ("private_key_dsa", "DSA "),
        ("private_key_pkcs8", ""),
        ("private_key_encrypted", "ENCRYPTED "),
        ("private_key_openssh", "OPENSSH "),
    ] {
        let mut x = Gen::new(name);
        c.push(case(
            name,
            &format!("key:\n-----BEGIN {kind}PRIVATE KEY-----\n"),
            format!("{}\n{}\n{}", x.r(B64, 64), x.r(B64, 64), x.r(B64, 20)),
            &format!("\n-----END {kind}PRIVATE KEY-----\nthanks"),
            format!("if line.starts_with(\"-----BEGIN {kind}PRIVATE KEY-----\") {{"),
        ));
    }
    let mut x = g!("private_key_pgp");
    c.push(case(
        "private_key_pgp",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n",
        format!("{}\n{}\n={}", x.r(B64, 64), x.r(B64, 30), x.r(B64, 4)),
        "\n-----END PGP PRIVATE KEY BLOCK-----\n",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----".to_owned(),
    ));
    let mut x = g!("http_bearer_token");
    c.push(case(
        "http_bearer_token",
        "curl -H 'Authorization: Bearer ",
        format!("{}9", x.r(AN, 40)),
        "' https://api.example.com",
        "use Bearer authentication and a Bearer token".to_owned(),
    ));
    c.push(case(
        "http_basic_auth",
        "Authorization: Basic ",
        "dXNlcjpzM2NyM3RwYXNzd29yZA==".to_owned(),
        "\n",
        "Authorization: Basic realm".to_owned(),
    ));

    // ---- Keyword + value: a name, then a value of a secret's shape (hex,
    // UUIDs and digits too, which entropy alone never reaches). One case
    // per common syntax, each with a near miss of the same syntax.
    let mut x = g!("secret_assignment");
    let uuid = |x: &mut Gen| {
        format!(
            "{}-{}-{}-{}-{}",
            x.r(HEX, 8),
            x.r(HEX, 4),
            x.r(HEX, 4),
            x.r(HEX, 4),
            x.r(HEX, 12)
        )
    };
    for (before, secret, after, near_miss) in [
        (
            "api_key = \"",
            x.r(HEX, 32),
            "\"",
            "api_key = os.environ[\"API_KEY\"]",
        ),
        (
            "export MYAPP_API_TOKEN=",
            x.r(AN, 30),
            "\n",
            "export MYAPP_API_TOKEN=$MYAPP_API_TOKEN\n",
        ),
        (
            "client_secret: ",
            uuid(&mut x),
            "\n",
            "client_secret: <client-secret>\n",
        ),
        (
            "STRIPE_CLIENT_SECRET='",
            x.r(LOWER_DIGITS, 24),
            "'",
            "STRIPE_CLIENT_SECRET='not-a-secret-setting'",
        ),
        (
            "token := \"",
            x.r(URLSAFE, 40),
            "\"",
            "token := tokenize(text)",
        ),
        (
            "const apiKey = '",
            x.r(AN, 32),
            "';",
            "const apiKey = process.env.API_KEY;",
        ),
        (
            "password=",
            x.r(AN, 14),
            " ",
            "password=not-a-secret-setting ",
        ),
        (
            "//registry.npmjs.org/:_authToken=",
            uuid(&mut x),
            "\n",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n",
        ),
        (
            "X-Api-Key: ",
            x.r(AN, 28),
            "\r\n",
            "X-Api-Key: <your-api-key>\r\n",
        ),
        (
            "\"secret\": \"",
            x.r(DIGITS, 18),
            "\"",
            "\"secret_name\": \"my-secret-v2\"",
        ),
    ] {
        c.push(case(
            "secret_assignment",
            before,
            secret,
            after,
            near_miss.to_owned(),
        ));
    }
    for near_miss in [
        "max_tokens: 4096",
        "secret = base64.b64encode(data)",
        "token: ${{ secrets.GH_TOKEN }}",
        "password_hash = bcrypt(pw)",
        "api_key: str = Field(...)",
        "PASSWORD=changeme",
        "token_type = \"bearer12345\"",
    ] {
        c.push(Case {
            name: "secret_assignment",
            text: String::new(),
            secret: String::new(),
            near_miss: near_miss.to_owned(),
        });
    }
    // A secret word announcing a value without an assignment: strong
    // shapes only (UUID, 32+ hex, 16+ digits, mixed base64).
    let mut x = g!("secret_keyword_value");
    for (before, secret, after, near_miss) in [
        (
            "the api key is ",
            x.r(HEX, 32),
            " for staging",
            "the api key is 3f9c2a7e1b4d8f0a for staging".to_owned(),
        ),
        (
            "npm token ",
            uuid(&mut x),
            "\n",
            "npm token expired at 1712345678\n".to_owned(),
        ),
        (
            "access key ",
            format!("{}4aZ", x.r(AN, 21)),
            "\n",
            format!("access key {}\n", low(LETTERS, 24)),
        ),
    ] {
        c.push(case(
            "secret_keyword_value",
            before,
            secret,
            after,
            near_miss,
        ));
    }
    let mut x = g!("curl_user_password");
    c.push(case(
        "curl_user_password",
        "curl -s -u deploy:",
        x.r(AN, 16),
        " https://api.example.com/v1/items",
        "curl -s -u deploy https://api.example.com/v1/items".to_owned(),
    ));
    c.push(case(
        "curl_user_password",
        "curl --user=ci:",
        x.r(LOWER_DIGITS, 12),
        " -X POST https://ci.example.com/hook",
        "git push -u origin feature:main".to_owned(),
    ));
    let mut x = g!("cli_password_option");
    c.push(case(
        "cli_password_option",
        "wget --http-user=ci --http-password=",
        x.r(AN, 14),
        " https://files.example.com/a.tgz",
        "wget --ask-password https://files.example.com/a.tgz".to_owned(),
    ));
    c.push(case(
        "cli_password_option",
        "mysqldump --password ",
        x.r(AN, 12),
        " app",
        "docker login --password-stdin registry.example.com".to_owned(),
    ));
    let mut x = g!("netrc_password");
    c.push(case(
        "netrc_password",
        "machine api.example.com\n  login ci\n  password ",
        x.r(AN, 18),
        "\n",
        "the machine asks for a login and a password first".to_owned(),
    ));
    let mut x = g!("http_authorization_token");
    c.push(case(
        "http_authorization_token",
        "Authorization: Token ",
        x.r(HEX, 40),
        "\n",
        "Authorization: Token required".to_owned(),
    ));
    c.push(case(
        "http_authorization_token",
        "-H 'authorization: Api-Token ",
        x.r(AN, 32),
        "'",
        "-H 'Authorization: Bearer' is missing".to_owned(),
    ));
    c.push(case(
        "http_authorization_token",
        "\"Authorization\": \"",
        x.r(AN, 36),
        "\"",
        "\"Authorization\": \"none\"".to_owned(),
    ));
    c
}

#[test]
fn every_rule_has_a_case() {
    let cases = cases();
    let mut missing = Vec::new();
    for (name, examples, near_misses) in token_rule_examples() {
        let in_table = !examples.is_empty() && !near_misses.is_empty();
        if !in_table && !cases.iter().any(|c| c.name == name) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "rules without a test case: {missing:?}");
    let names: Vec<&str> = token_rule_names().collect();
    assert!(names.len() >= 60, "{} rules", names.len());
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "duplicate rule names");
}

#[test]
fn every_rule_table_example_redacts_as_written_under_its_rule_name() {
    let r = Redactor::default();
    let mut failures = Vec::new();
    let mut played = 0;
    for (name, examples, near_misses) in token_rule_examples() {
        for (text, expected) in examples {
            played += 1;
            let out = r.redact_text_with_findings(text);
            if out.output != *expected || !out.findings.iter().any(|f| f.rule == name) {
                failures.push(format!(
                    "{name}: {text:?} -> {:?} {:?}, expected {expected:?}",
                    out.output, out.findings
                ));
            }
        }
        for text in near_misses {
            played += 1;
            let out = r.redact_text_with_findings(text);
            if out.output != *text {
                failures.push(format!(
                    "{name} near miss: {text:?} -> {:?} {:?}",
                    out.output, out.findings
                ));
            }
        }
    }
    println!(
        "rule table examples: {played} played, {} failed",
        failures.len()
    );
    assert!(played >= 40, "only {played} examples in the rule table");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_made_up_secret_is_redacted_under_its_rule_name() {
    let r = Redactor::default();
    let mut failures = Vec::new();
    for c in cases().into_iter().filter(|c| !c.secret.is_empty()) {
        let out = r.redact_text_with_findings(&c.text);
        let leaked = out.output.contains(c.secret.as_str());
        let named = out.findings.iter().any(|f| f.rule == c.name);
        if leaked || !named {
            failures.push(format!(
                "{}: leaked={leaked} findings={:?} output={:?}",
                c.name, out.findings, out.output
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_near_miss_is_kept() {
    let r = Redactor::default();
    let mut failures = Vec::new();
    for c in cases() {
        let out = r.redact_text_with_findings(&c.near_miss);
        if out.output != c.near_miss {
            failures.push(format!(
                "{}: {:?} -> {:?} {:?}",
                c.name, c.near_miss, out.output, out.findings
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_occurrence_of_a_found_secret_is_redacted() {
    // Found once by its context (the Heroku key is a UUID beside its name),
    // then redacted wherever else it occurs, even where no rule would see it.
    let uuid = "3b1f5c8e-9a2d-4e7f-b6c1-0d9e8f7a6b5c";
    let text = format!(
        "HEROKU_API_KEY: {uuid}\nlater: the key {uuid} again, and in a path /keys/{uuid}.txt"
    );
    let out = Redactor::default().redact_text(&text);
    assert!(!out.contains(uuid), "{out}");
    assert_eq!(out.matches("REDACTED").count(), 3, "{out}");
    // Across JSONL lines, too: the line that names it comes after.
    let jsonl = format!("{{\"text\":\"uuid {uuid}\"}}\n{{\"text\":\"HEROKU_API_KEY: {uuid}\"}}\n");
    let out = Redactor::default().redact_json(&jsonl);
    assert!(!out.contains(uuid), "{out}");
}
