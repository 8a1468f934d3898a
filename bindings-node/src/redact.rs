//! Secret redaction (STORE.md §7): `redactText`, `redactJson`,
//! `redactBlob`, their `*Async` twins (napi `AsyncTask` on the libuv pool),
//! and the `Redactor` class with findings.
//!
//! Each function builds (or reuses) a core redactor and runs it; the async
//! variants run exactly the same call in `compute`. A pattern that does not
//! compile throws the project's error, `code: 'invalid_pattern'`.

use std::borrow::Cow;

use agent_checkpoint_redact as redact;
use napi::bindgen_prelude::{AsyncTask, Buffer, Uint8ArraySlice};
use napi::Env;
use napi_derive::napi;

use crate::error::OrThrow;
use crate::task::{spawn, spawn_then, Work};

/// Redacted bytes and what was found in them.
type RedactedBytes = (Vec<u8>, Vec<Finding>);

/// Options of the redaction functions and of `new Redactor()`.
#[napi(object)]
#[derive(Default)]
pub struct RedactOptions {
    /// Also replace e-mail addresses, phone numbers and street addresses
    /// (`[REDACTED_EMAIL]`, `[REDACTED_PHONE]`, `[REDACTED_ADDRESS]`;
    /// default `false`).
    pub personal_data: Option<bool>,
    /// Extra rules, `[name, regex]` pairs (Rust `regex` syntax): every
    /// match is replaced and reported as `name`.
    pub rules: Option<Vec<(String, String)>>,
}

/// One replaced span: the rule that found it and its byte range in the
/// input's UTF-8 encoding (not UTF-16 string indices), never the secret.
#[napi(object)]
pub struct Finding {
    /// The rule's name (`github_pat`, `entropy`, `email`, a caller's rule, ...).
    pub rule: String,
    /// First byte of the replaced span in the UTF-8 input.
    pub start: f64,
    /// One past the last byte of the replaced span.
    pub end: f64,
}

/// A redacted text and what was replaced in it.
#[napi(object)]
pub struct Redaction {
    /// The redacted text.
    pub output: String,
    /// The replaced spans, sorted by `start`.
    pub findings: Vec<Finding>,
}

/// Redacted bytes and what was replaced in them.
#[napi(object)]
pub struct BlobRedaction {
    /// The redacted bytes (a copy of the input when nothing was replaced):
    /// a `Buffer`, typed as the `Uint8Array` it extends.
    #[napi(ts_type = "Uint8Array")]
    pub output: Buffer,
    /// The replaced spans, sorted by `start`.
    pub findings: Vec<Finding>,
}

/// The core redactor for `options` (the shared default one when there are none).
fn build(options: Option<RedactOptions>) -> agent_checkpoint::Result<redact::Redactor> {
    let options = options.unwrap_or_default();
    let mut builder =
        redact::Redactor::builder().personal_data(options.personal_data.unwrap_or(false));
    for (name, pattern) in options.rules.unwrap_or_default() {
        builder = builder.rule(name, pattern);
    }
    Ok(builder.build()?)
}

fn findings(found: Vec<redact::Finding>) -> Vec<Finding> {
    found
        .into_iter()
        .map(|f| Finding {
            rule: f.rule,
            start: f.start as f64,
            end: f.end as f64,
        })
        .collect()
}

/// Plain text or JSON/JSONL.
#[derive(Clone, Copy)]
enum Mode {
    Text,
    Json,
}

/// `text` redacted; `text` itself, moved, when nothing was found.
fn redact_string(redactor: &redact::Redactor, mode: Mode, text: String) -> String {
    let output = match mode {
        Mode::Text => redactor.redact_text(&text),
        Mode::Json => redactor.redact_json(&text),
    };
    match output {
        Cow::Borrowed(_) => text,
        Cow::Owned(output) => output,
    }
}

fn redact_string_with_findings(redactor: &redact::Redactor, mode: Mode, text: String) -> Redaction {
    let r = match mode {
        Mode::Text => redactor.redact_text_with_findings(&text),
        Mode::Json => redactor.redact_json_with_findings(&text),
    };
    let found = findings(r.findings);
    let output = match r.output {
        Cow::Borrowed(_) => text,
        Cow::Owned(output) => output,
    };
    Redaction {
        output,
        findings: found,
    }
}

fn redact_bytes(redactor: &redact::Redactor, path: &str, data: &[u8]) -> Vec<u8> {
    redactor.redact_blob(path, data).into_owned()
}

/// The output bytes (not yet a `Buffer`, which only the JS thread may make)
/// and the findings.
fn redact_bytes_with_findings(
    redactor: &redact::Redactor,
    path: &str,
    data: &[u8],
) -> (Vec<u8>, Vec<Finding>) {
    let r = redactor.redact_blob_with_findings(path, data);
    (r.output.into_owned(), findings(r.findings))
}

/// Redacts secrets from `text` as plain text (the default redactor, or one
/// built from `options`; throws `invalid_pattern` for a bad rule).
#[napi]
pub fn redact_text(
    env: &Env,
    text: String,
    options: Option<RedactOptions>,
) -> napi::Result<String> {
    let redactor = build(options).or_throw(env)?;
    Ok(redact_string(&redactor, Mode::Text, text))
}

/// Redacts a JSON document, or JSONL line by line, changing only string
/// values in place (formatting kept).
#[napi]
pub fn redact_json(
    env: &Env,
    text: String,
    options: Option<RedactOptions>,
) -> napi::Result<String> {
    let redactor = build(options).or_throw(env)?;
    Ok(redact_string(&redactor, Mode::Json, text))
}

/// Redacts a file's bytes by its path: `.json`/`.jsonl` JSON-aware, other
/// UTF-8 text as text, binary (a NUL byte) untouched; text with invalid UTF-8 is redacted, its invalid bytes kept.
/// Always returns a new `Buffer` (typed as the `Uint8Array` it extends, so
/// the typings need no `@types/node`).
#[napi(ts_return_type = "Uint8Array")]
pub fn redact_blob(
    env: &Env,
    path: String,
    data: Uint8ArraySlice<'_>,
    options: Option<RedactOptions>,
) -> napi::Result<Buffer> {
    let redactor = build(options).or_throw(env)?;
    Ok(redact_bytes(&redactor, &path, &data).into())
}

/// `redactText` off the JS thread: resolves to the same text (a bad rule
/// still throws at once).
#[napi(ts_return_type = "Promise<string>")]
pub fn redact_text_async(
    env: &Env,
    text: String,
    options: Option<RedactOptions>,
) -> napi::Result<AsyncTask<Work<String, String>>> {
    let redactor = build(options).or_throw(env)?;
    Ok(spawn(move || {
        Ok(redact_string(&redactor, Mode::Text, text))
    }))
}

/// `redactJson` off the JS thread: resolves to the same text (a bad rule
/// still throws at once).
#[napi(ts_return_type = "Promise<string>")]
pub fn redact_json_async(
    env: &Env,
    text: String,
    options: Option<RedactOptions>,
) -> napi::Result<AsyncTask<Work<String, String>>> {
    let redactor = build(options).or_throw(env)?;
    Ok(spawn(move || {
        Ok(redact_string(&redactor, Mode::Json, text))
    }))
}

/// `redactBlob` off the JS thread: `data` is copied first (the caller may
/// reuse it at once); resolves to a new `Buffer`.
#[napi(ts_return_type = "Promise<Uint8Array>")]
pub fn redact_blob_async(
    env: &Env,
    path: String,
    data: Uint8ArraySlice<'_>,
    options: Option<RedactOptions>,
) -> napi::Result<AsyncTask<Work<Vec<u8>, Buffer>>> {
    let redactor = build(options).or_throw(env)?;
    let data = data.to_vec();
    Ok(spawn_then(
        move || Ok(redact_bytes(&redactor, &path, &data)),
        |bytes| Ok(bytes.into()),
    ))
}

/// Redacts secrets from text, JSON/JSONL and blobs. Build one and reuse it:
/// its rules are compiled once, in the constructor (which throws
/// `invalid_pattern` for a rule that does not compile). Every method has an
/// `*Async` twin that runs on the libuv thread pool.
#[napi]
pub struct Redactor {
    inner: redact::Redactor,
    personal_data: bool,
    rule_names: Vec<String>,
}

#[napi]
impl Redactor {
    /// A redactor with `options` (none: the default redactor).
    #[napi(constructor)]
    pub fn new(env: &Env, options: Option<RedactOptions>) -> napi::Result<Redactor> {
        let options = options.unwrap_or_default();
        let personal_data = options.personal_data.unwrap_or(false);
        let rule_names = options
            .rules
            .iter()
            .flatten()
            .map(|(name, _)| name.clone())
            .collect();
        Ok(Redactor {
            inner: build(Some(options)).or_throw(env)?,
            personal_data,
            rule_names,
        })
    }

    /// Whether personal data is redacted.
    #[napi(getter)]
    pub fn personal_data(&self) -> bool {
        self.personal_data
    }

    /// The names of the caller's rules, in order.
    #[napi(getter)]
    pub fn rule_names(&self) -> Vec<String> {
        self.rule_names.clone()
    }

    /// Redacts `text` as plain text.
    #[napi]
    pub fn redact_text(&self, text: String) -> String {
        redact_string(&self.inner, Mode::Text, text)
    }

    /// Redacts a JSON document, or JSONL line by line (formatting kept).
    #[napi]
    pub fn redact_json(&self, text: String) -> String {
        redact_string(&self.inner, Mode::Json, text)
    }

    /// Redacts a file's bytes by its path (`.json`/`.jsonl` JSON-aware,
    /// other text as text, binary untouched); a new `Buffer`.
    #[napi(ts_return_type = "Uint8Array")]
    pub fn redact_blob(&self, path: String, data: Uint8ArraySlice<'_>) -> Buffer {
        redact_bytes(&self.inner, &path, &data).into()
    }

    /// `redactText`, also returning what was replaced.
    #[napi]
    pub fn redact_text_with_findings(&self, text: String) -> Redaction {
        redact_string_with_findings(&self.inner, Mode::Text, text)
    }

    /// `redactJson`, also returning what was replaced.
    #[napi]
    pub fn redact_json_with_findings(&self, text: String) -> Redaction {
        redact_string_with_findings(&self.inner, Mode::Json, text)
    }

    /// `redactBlob`, also returning what was replaced.
    #[napi]
    pub fn redact_blob_with_findings(
        &self,
        path: String,
        data: Uint8ArraySlice<'_>,
    ) -> BlobRedaction {
        let (output, findings) = redact_bytes_with_findings(&self.inner, &path, &data);
        BlobRedaction {
            output: output.into(),
            findings,
        }
    }

    /// `redactText` off the JS thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn redact_text_async(&self, text: String) -> AsyncTask<Work<String, String>> {
        let redactor = self.inner.clone();
        spawn(move || Ok(redact_string(&redactor, Mode::Text, text)))
    }

    /// `redactJson` off the JS thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn redact_json_async(&self, text: String) -> AsyncTask<Work<String, String>> {
        let redactor = self.inner.clone();
        spawn(move || Ok(redact_string(&redactor, Mode::Json, text)))
    }

    /// `redactBlob` off the JS thread (`data` is copied first).
    #[napi(ts_return_type = "Promise<Uint8Array>")]
    pub fn redact_blob_async(
        &self,
        path: String,
        data: Uint8ArraySlice<'_>,
    ) -> AsyncTask<Work<Vec<u8>, Buffer>> {
        let redactor = self.inner.clone();
        let data = data.to_vec();
        spawn_then(
            move || Ok(redact_bytes(&redactor, &path, &data)),
            |bytes| Ok(bytes.into()),
        )
    }

    /// `redactTextWithFindings` off the JS thread.
    #[napi(ts_return_type = "Promise<Redaction>")]
    pub fn redact_text_with_findings_async(
        &self,
        text: String,
    ) -> AsyncTask<Work<Redaction, Redaction>> {
        let redactor = self.inner.clone();
        spawn(move || Ok(redact_string_with_findings(&redactor, Mode::Text, text)))
    }

    /// `redactJsonWithFindings` off the JS thread.
    #[napi(ts_return_type = "Promise<Redaction>")]
    pub fn redact_json_with_findings_async(
        &self,
        text: String,
    ) -> AsyncTask<Work<Redaction, Redaction>> {
        let redactor = self.inner.clone();
        spawn(move || Ok(redact_string_with_findings(&redactor, Mode::Json, text)))
    }

    /// `redactBlobWithFindings` off the JS thread (`data` is copied first).
    #[napi(ts_return_type = "Promise<BlobRedaction>")]
    pub fn redact_blob_with_findings_async(
        &self,
        path: String,
        data: Uint8ArraySlice<'_>,
    ) -> AsyncTask<Work<RedactedBytes, BlobRedaction>> {
        let redactor = self.inner.clone();
        let data = data.to_vec();
        spawn_then(
            move || Ok(redact_bytes_with_findings(&redactor, &path, &data)),
            |(output, findings)| {
                Ok(BlobRedaction {
                    output: output.into(),
                    findings,
                })
            },
        )
    }
}
