//! Secret redaction (STORE.md §7): `redact_text`, `redact_json`,
//! `redact_blob`, the `Redactor` class and what it found (`Finding`,
//! `Redaction`, `BlobRedaction`).
//!
//! Each function builds (or reuses) a core redactor, runs it — with the
//! interpreter detached for inputs above [`DETACH_ABOVE`] bytes — and hands
//! back the input object itself when nothing was found. A bad pattern is
//! the project's `invalid_pattern` error (`InvalidPatternError`).

use std::borrow::Cow;

use agent_checkpoint_redact as redact;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyMapping, PyString};

use crate::args::path_text;
use crate::errors::IntoPyResult;

/// Inputs at least this long are redacted with the interpreter detached, so
/// other Python threads run meanwhile; below it, releasing and re-taking the
/// GIL would cost more than the redaction.
const DETACH_ABOVE: usize = 16 * 1024;

/// Runs `work` (over `len` bytes of input) with the interpreter detached
/// when the input is large.
fn run<T: Send>(py: Python<'_>, len: usize, work: impl FnOnce() -> T + Send) -> T {
    if len >= DETACH_ABOVE {
        py.detach(work)
    } else {
        work()
    }
}

/// The caller's rules: a mapping `name -> pattern` (in its order) or an
/// iterable of `(name, pattern)` pairs; `None` is no rules.
fn rule_pairs(rules: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, String)>> {
    const SHAPE: &str =
        "rules must be a dict of name -> pattern or an iterable of (name, pattern) pairs";
    let Some(rules) = rules.filter(|r| !r.is_none()) else {
        return Ok(Vec::new());
    };
    if rules.is_instance_of::<PyString>() || rules.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(SHAPE));
    }
    let pairs = match rules.cast::<PyMapping>() {
        Ok(mapping) => mapping.items()?.into_any(),
        Err(_) => rules.clone(),
    };
    let mut out = Vec::new();
    for pair in pairs.try_iter()? {
        let pair = pair?;
        match name_and_pattern(&pair) {
            Some(pair) => out.push(pair),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "{SHAPE}; got an item {}",
                    pair.repr()?
                )))
            }
        }
    }
    Ok(out)
}

/// A `(name, pattern)` pair given as any iterable of two `str` (a tuple, or
/// a list as JSON gives it), else `None`.
fn name_and_pattern(pair: &Bound<'_, PyAny>) -> Option<(String, String)> {
    if pair.is_instance_of::<PyString>() {
        return None;
    }
    let items = pair
        .try_iter()
        .ok()?
        .map(|item| item.ok()?.extract::<String>().ok())
        .collect::<Option<Vec<String>>>()?;
    match <[String; 2]>::try_from(items) {
        Ok([name, pattern]) => Some((name, pattern)),
        Err(_) => None,
    }
}

/// Python's `repr` of a string (`'ticket'`).
fn py_repr(py: Python<'_>, text: &str) -> PyResult<String> {
    Ok(PyString::new(py, text).repr()?.to_string())
}

/// The core redactor for these options (the shared default one when there
/// are none); `InvalidPatternError` for a rule that does not compile.
fn build(
    py: Python<'_>,
    personal_data: bool,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<(redact::Redactor, Vec<String>)> {
    let rules = rule_pairs(rules)?;
    let names = rules.iter().map(|(name, _)| name.clone()).collect();
    let mut builder = redact::Redactor::builder().personal_data(personal_data);
    for (name, pattern) in rules {
        builder = builder.rule(name, pattern);
    }
    let redactor = builder
        .build()
        .map_err(agent_checkpoint::Error::from)
        .into_py_result(py)?;
    Ok((redactor, names))
}

/// What a text redaction gives back to Python: `None` when nothing changed
/// (the caller returns the input object itself), else the new text.
fn owned(output: Cow<'_, str>) -> Option<String> {
    match output {
        Cow::Borrowed(_) => None,
        Cow::Owned(text) => Some(text),
    }
}

/// `text` redacted by `work`: the same `str` object when nothing was found.
fn redact_str<'py>(
    text: &Bound<'py, PyString>,
    work: impl for<'a> FnOnce(&'a str) -> Cow<'a, str> + Send,
) -> PyResult<Bound<'py, PyString>> {
    let py = text.py();
    let backed = PyBackedStr::try_from(text.clone())?;
    let changed = run(py, backed.len(), || owned(work(&backed)));
    Ok(match changed {
        None => text.clone(),
        Some(output) => PyString::new(py, &output),
    })
}

/// `data` redacted by `work`: the same `bytes` object when nothing was found.
fn redact_bytes<'py>(
    data: &Bound<'py, PyBytes>,
    work: impl for<'a> FnOnce(&'a [u8]) -> Cow<'a, [u8]> + Send,
) -> Bound<'py, PyBytes> {
    let py = data.py();
    let bytes = data.as_bytes();
    let changed = run(py, bytes.len(), || match work(bytes) {
        Cow::Borrowed(_) => None,
        Cow::Owned(output) => Some(output),
    });
    match changed {
        None => data.clone(),
        Some(output) => PyBytes::new(py, &output),
    }
}

/// Redacts secrets from `text` as plain text; returns `text` itself when
/// nothing was found.
#[pyfunction]
#[pyo3(signature = (text, *, personal_data = false, rules = None))]
pub fn redact_text<'py>(
    text: &Bound<'py, PyString>,
    personal_data: bool,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyString>> {
    let (redactor, _) = build(text.py(), personal_data, rules)?;
    redact_str(text, |t| redactor.redact_text(t))
}

/// Redacts a JSON document, or JSONL line by line, changing only string
/// values in place (formatting kept).
#[pyfunction]
#[pyo3(signature = (text, *, personal_data = false, rules = None))]
pub fn redact_json<'py>(
    text: &Bound<'py, PyString>,
    personal_data: bool,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyString>> {
    let (redactor, _) = build(text.py(), personal_data, rules)?;
    redact_str(text, |t| redactor.redact_json(t))
}

/// Redacts a file's bytes by its path: `.json`/`.jsonl` JSON-aware, other
/// UTF-8 text as text, binary (a NUL byte) untouched; text with invalid UTF-8 is redacted, its invalid bytes kept.
#[pyfunction]
#[pyo3(signature = (path, data, *, personal_data = false, rules = None))]
pub fn redact_blob<'py>(
    path: &Bound<'py, PyAny>,
    data: &Bound<'py, PyBytes>,
    personal_data: bool,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let path = path_text(path, "path")?;
    let (redactor, _) = build(data.py(), personal_data, rules)?;
    Ok(redact_bytes(data, |b| redactor.redact_blob(&path, b)))
}

/// One replaced span: the rule that found it and its byte range in the
/// input (UTF-8 bytes), never the secret itself.
#[pyclass(frozen, eq, hash, module = "agent_checkpoint")]
#[derive(PartialEq, Eq, Hash)]
pub struct Finding {
    /// The rule's name (`github_pat`, `entropy`, `email`, a caller's rule, ...).
    #[pyo3(get)]
    rule: String,
    /// First byte of the replaced span in the input's UTF-8 encoding.
    #[pyo3(get)]
    start: usize,
    /// One past the last byte of the replaced span.
    #[pyo3(get)]
    end: usize,
}

#[pymethods]
impl Finding {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Finding(rule={}, start={}, end={})",
            py_repr(py, &self.rule)?,
            self.start,
            self.end
        ))
    }
}

fn findings(found: Vec<redact::Finding>) -> Vec<Finding> {
    found
        .into_iter()
        .map(|f| Finding {
            rule: f.rule,
            start: f.start,
            end: f.end,
        })
        .collect()
}

/// A redacted text and what was replaced in it.
#[pyclass(frozen, module = "agent_checkpoint")]
pub struct Redaction {
    /// The redacted text (the input itself when nothing was found).
    #[pyo3(get)]
    output: Py<PyString>,
    /// The replaced spans, sorted by `start`.
    #[pyo3(get)]
    findings: Vec<Py<Finding>>,
}

#[pymethods]
impl Redaction {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Redaction(output={}, findings={})",
            self.output.bind(py).repr()?,
            self.findings.len()
        ))
    }
}

/// Redacted bytes and what was replaced in them.
#[pyclass(frozen, module = "agent_checkpoint")]
pub struct BlobRedaction {
    /// The redacted bytes (the input itself when nothing was replaced).
    #[pyo3(get)]
    output: Py<PyBytes>,
    /// The replaced spans, sorted by `start`.
    #[pyo3(get)]
    findings: Vec<Py<Finding>>,
}

#[pymethods]
impl BlobRedaction {
    fn __repr__(&self) -> String {
        format!("BlobRedaction(findings={})", self.findings.len())
    }
}

fn finding_objects(py: Python<'_>, found: Vec<redact::Finding>) -> PyResult<Vec<Py<Finding>>> {
    findings(found)
        .into_iter()
        .map(|f| Py::new(py, f))
        .collect()
}

/// A text redaction with its findings; the output is `text` itself when
/// nothing was found.
fn text_redaction(
    text: &Bound<'_, PyString>,
    work: impl for<'a> FnOnce(&'a str) -> redact::Redaction<'a, str> + Send,
) -> PyResult<Redaction> {
    let py = text.py();
    let backed = PyBackedStr::try_from(text.clone())?;
    let (changed, found) = run(py, backed.len(), || {
        let r = work(&backed);
        (owned(r.output), r.findings)
    });
    let output = match changed {
        None => text.clone(),
        Some(output) => PyString::new(py, &output),
    };
    Ok(Redaction {
        output: output.unbind(),
        findings: finding_objects(py, found)?,
    })
}

/// Redacts secrets from text, JSON/JSONL and blobs. Build one and reuse it:
/// caller rules are compiled once, here.
///
/// `personal_data=True` also replaces e-mail addresses, phone numbers and
/// street addresses; `rules` adds regexes (a dict `name -> pattern` or
/// `(name, pattern)` pairs), reported under their names. A pattern that does
/// not compile raises `InvalidPatternError`.
#[pyclass(frozen, module = "agent_checkpoint")]
pub struct Redactor {
    inner: redact::Redactor,
    personal_data: bool,
    rule_names: Vec<String>,
}

#[pymethods]
impl Redactor {
    #[new]
    #[pyo3(signature = (*, personal_data = false, rules = None))]
    fn new(
        py: Python<'_>,
        personal_data: bool,
        rules: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Redactor> {
        let (inner, rule_names) = build(py, personal_data, rules)?;
        Ok(Redactor {
            inner,
            personal_data,
            rule_names,
        })
    }

    /// Whether personal data (e-mail, phone, street addresses) is redacted.
    #[getter]
    fn personal_data(&self) -> bool {
        self.personal_data
    }

    /// The names of the caller's rules, in order.
    #[getter]
    fn rule_names(&self) -> Vec<String> {
        self.rule_names.clone()
    }

    /// Redacts `text` as plain text; returns `text` itself when nothing was found.
    fn redact_text<'py>(&self, text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyString>> {
        redact_str(text, |t| self.inner.redact_text(t))
    }

    /// Redacts a JSON document, or JSONL line by line (formatting kept).
    fn redact_json<'py>(&self, text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyString>> {
        redact_str(text, |t| self.inner.redact_json(t))
    }

    /// Redacts a file's bytes by its path (`.json`/`.jsonl` JSON-aware,
    /// other text as text, binary untouched).
    fn redact_blob<'py>(
        &self,
        path: &Bound<'py, PyAny>,
        data: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let path = path_text(path, "path")?;
        Ok(redact_bytes(data, |b| self.inner.redact_blob(&path, b)))
    }

    /// `redact_text`, also returning what was replaced.
    fn redact_text_with_findings(&self, text: &Bound<'_, PyString>) -> PyResult<Redaction> {
        text_redaction(text, |t| self.inner.redact_text_with_findings(t))
    }

    /// `redact_json`, also returning what was replaced.
    fn redact_json_with_findings(&self, text: &Bound<'_, PyString>) -> PyResult<Redaction> {
        text_redaction(text, |t| self.inner.redact_json_with_findings(t))
    }

    /// `redact_blob`, also returning what was replaced.
    fn redact_blob_with_findings(
        &self,
        path: &Bound<'_, PyAny>,
        data: &Bound<'_, PyBytes>,
    ) -> PyResult<BlobRedaction> {
        let py = data.py();
        let path = path_text(path, "path")?;
        let bytes = data.as_bytes();
        let (changed, found) = run(py, bytes.len(), || {
            let r = self.inner.redact_blob_with_findings(&path, bytes);
            let changed = match r.output {
                Cow::Borrowed(_) => None,
                Cow::Owned(output) => Some(output),
            };
            (changed, r.findings)
        });
        let output = match changed {
            None => data.clone(),
            Some(output) => PyBytes::new(py, &output),
        };
        Ok(BlobRedaction {
            output: output.unbind(),
            findings: finding_objects(py, found)?,
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let rules = self
            .rule_names
            .iter()
            .map(|name| py_repr(py, name))
            .collect::<PyResult<Vec<_>>>()?
            .join(", ");
        Ok(format!(
            "Redactor(personal_data={}, rules=[{rules}])",
            if self.personal_data { "True" } else { "False" }
        ))
    }
}
