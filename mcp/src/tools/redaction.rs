//! `redact_text`: the store's default redactor on a text, for agents that
//! want to check or clean something before they store or send it.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::{parse_args, tool_result, ToolOutput};
use crate::schema::{input_schema, output_schema};
use crate::server::{CheckpointServer, State};

/// Arguments of `redact_text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedactArgs {
    /// The text to redact.
    pub text: String,
    /// Treat the text as JSON or JSONL: only string values are redacted and
    /// the formatting is kept (default false: plain text).
    #[serde(default)]
    pub json: bool,
}

/// Result of `redact_text`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RedactResult {
    /// The text with every secret found replaced by `REDACTED`.
    pub text: String,
    /// How many secrets were found.
    pub findings: usize,
    /// The rules that found them (e.g. `aws_access_key_id`, `entropy`), sorted, once each.
    pub rules: Vec<String>,
}

impl ToolOutput for RedactResult {
    fn summary(&self) -> String {
        if self.findings == 0 {
            "No secrets found; the text is unchanged.".to_owned()
        } else {
            format!(
                "Redacted {} secret(s) ({}).",
                self.findings,
                self.rules.join(", ")
            )
        }
    }
}

fn redact(state: &State, args: RedactArgs) -> RedactResult {
    let redaction = if args.json {
        state.redactor.redact_json_with_findings(&args.text)
    } else {
        state.redactor.redact_text_with_findings(&args.text)
    };
    let mut rules: Vec<String> = redaction.findings.iter().map(|f| f.rule.clone()).collect();
    rules.sort();
    rules.dedup();
    RedactResult {
        findings: redaction.findings.len(),
        text: redaction.output.into_owned(),
        rules,
    }
}

#[tool_router(router = redaction_tools, vis = "pub(crate)")]
impl CheckpointServer {
    #[tool(
        name = "redact_text",
        description = "Remove secrets (API keys, tokens, passwords, credential URLs, high-entropy strings) from a text, replacing each with REDACTED; the same redaction save_session applies. Use it before writing logs, notes or messages that may hold secrets. Touches no file.",
        input_schema = input_schema::<RedactArgs>(),
        output_schema = output_schema::<RedactResult>(),
        annotations(
            title = "Redact secrets from a text",
            read_only_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn redact_text(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(parse_args::<RedactArgs>(arguments).map(|args| redact(&state, args)))
    }
}
