//! `agent-checkpoint redact`: secrets out of a file or stdin before it is
//! stored or shared (STORE.md §7), the redacted bytes on stdout.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint_redact::Redactor;
use serde_json::json;

use crate::files::read_bytes;
use crate::output::print_json;

/// How the input is read and what is printed; see the command's help.
const AFTER_HELP: &str = "\
Modes:
  --json         for this command: the input is JSON or JSONL, whatever its name
                 (errors are printed as JSON too); only string values change, in
                 place (formatting kept; keys too); IDs, paths and signatures are left alone
  FILE           by its extension: .json/.jsonl JSON-aware, anything else as text
  stdin          as text
  Binary input (a NUL byte) is never changed, in every mode; text that is not
  valid UTF-8 is redacted all the same, its invalid bytes kept.

Output:
  The redacted bytes, exactly (nothing added; input with nothing found comes back
  byte for byte). With --findings, instead, one JSON document:
    {\"findings\": [{\"rule\": \"github_pat\", \"start\": 6, \"end\": 46}, ...]}
  (start/end: byte offsets into the input; the secrets themselves are never printed).
  Exit status 0 either way; 2 for an unreadable input, a malformed --rule
  (invalid_argument) or a rule whose regex does not compile (invalid_pattern).

Examples:
  agent-checkpoint redact transcript.jsonl > clean.jsonl
  git diff | agent-checkpoint redact --rule ticket='TICKET-[0-9]{6}'
  agent-checkpoint redact --findings --personal-data notes.txt";

/// `redact [--json] [--findings] [--personal-data] [--rule NAME=REGEX]... [FILE]`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct RedactArgs {
    /// The file to redact (`-` or none: stdin).
    file: Option<PathBuf>,
    /// Print the findings (rule, byte range) as one JSON document instead of the text.
    #[arg(long)]
    findings: bool,
    /// Also replace e-mail addresses, phone numbers and street addresses.
    #[arg(long)]
    personal_data: bool,
    /// Also redact every match of REGEX (Rust regex syntax), reported as NAME; repeatable.
    #[arg(long = "rule", value_name = "NAME=REGEX")]
    rules: Vec<String>,
}

/// Splits `NAME=REGEX` at its first `=`; the name must not be empty.
fn parse_rule(rule: &str) -> Result<(&str, &str), Error> {
    match rule.split_once('=') {
        Some((name, pattern)) if !name.is_empty() => Ok((name, pattern)),
        _ => Err(Error::invalid_argument(
            "--rule",
            format!("{rule:?} is not NAME=REGEX"),
        )),
    }
}

/// The redactor the flags ask for (the default one without flags).
fn redactor(args: &RedactArgs) -> Result<Redactor, Error> {
    let mut builder = Redactor::builder().personal_data(args.personal_data);
    for rule in &args.rules {
        let (name, pattern) = parse_rule(rule)?;
        builder = builder.rule(name, pattern);
    }
    Ok(builder.build()?)
}

/// The name the redactor judges the input by (`redact_blob`): one ending in
/// `.json` with `--json`, FILE's own, or a plain-text one for stdin. The
/// redactor itself decides what is binary, the same way in every mode.
fn blob_name(file: Option<&Path>, json: bool) -> Cow<'_, str> {
    match file {
        _ if json => Cow::Borrowed("input.json"),
        Some(file) if file != Path::new("-") => file.to_string_lossy(),
        _ => Cow::Borrowed("<stdin>"),
    }
}

/// Runs `redact`; `json` is the global `--json` flag: JSON-aware mode.
pub fn run(args: &RedactArgs, json: bool) -> Result<ExitCode, Error> {
    let redactor = redactor(args)?;
    let file = args.file.as_deref();
    let input = read_bytes(file.unwrap_or(Path::new("-")))?;
    let redaction = redactor.redact_blob_with_findings(&blob_name(file, json), &input);
    if args.findings {
        let findings: Vec<_> = redaction
            .findings
            .iter()
            .map(|f| json!({"rule": f.rule, "start": f.start, "end": f.end}))
            .collect();
        print_json(&json!({ "findings": findings }))?;
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(&redaction.output)
            .and_then(|()| out.flush())
            .map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_split_at_the_first_equals_sign() {
        assert_eq!(parse_rule("t=a=b").ok(), Some(("t", "a=b")));
        assert_eq!(parse_rule("t=").ok(), Some(("t", "")));
        assert!(parse_rule("=x").is_err());
        assert!(parse_rule("nothing").is_err());
    }

    #[test]
    fn the_mode_is_chosen_by_name() {
        assert_eq!(blob_name(Some(Path::new("a/b.jsonl")), false), "a/b.jsonl");
        assert_eq!(blob_name(Some(Path::new("a/b.txt")), true), "input.json");
        assert_eq!(blob_name(Some(Path::new("-")), false), "<stdin>");
        assert_eq!(blob_name(None, false), "<stdin>");
        assert_eq!(blob_name(None, true), "input.json");
    }
}
