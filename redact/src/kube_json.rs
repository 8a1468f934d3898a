//! Kubernetes `Secret` manifests in JSON (`kubectl get secret -o json`):
//! at a `"kind": "Secret"` member, every string value of the same object's
//! `"data"` and `"stringData"` objects is a secret; the keys stay. Also
//! inside a JSON string, where the quotes are escaped (`\"kind\":
//! \"Secret\"`), as a transcript holds a tool's output. Work is bounded:
//! at most [`crate::kube::WINDOW`] bytes either side of the keyword.

use crate::kube::WINDOW;
use crate::placeholders::{is_placeholder, is_reference};

/// Where the object holding the keyword at `kw` opens: the nearest `{`
/// before it not closed again in between.
fn object_start(b: &[u8], kw: usize) -> Option<usize> {
    let floor = kw.saturating_sub(WINDOW);
    let mut depth = 0usize;
    let mut i = kw;
    while i > floor {
        i -= 1;
        match b[i] {
            b'}' | b']' => depth += 1,
            b'{' | b'[' if depth > 0 => depth -= 1,
            b'{' => return Some(i),
            b'[' => return None,
            _ => {}
        }
    }
    None
}

/// A JSON string at `i` (its opening quote, escaped or not): the range of
/// its content and the index after its closing quote.
fn string_at(b: &[u8], i: usize, escaped: bool, limit: usize) -> Option<(usize, usize, usize)> {
    let q: &[u8] = if escaped { b"\\\"" } else { b"\"" };
    if !b[i..limit].starts_with(q) {
        return None;
    }
    let s = i + q.len();
    let mut j = s;
    while j < limit {
        if b[j..limit].starts_with(q) {
            return Some((s, j, j + q.len()));
        }
        // An escape inside: `\\` skips two bytes (in escaped mode `\\\"`
        // is a quote inside the string: three bytes plus the quote).
        j += if b[j] == b'\\' && !b[j..limit].starts_with(q) {
            2
        } else {
            1
        };
    }
    None
}

fn skip_spaces(b: &[u8], mut i: usize, limit: usize) -> usize {
    while i < limit {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i] == b'\\' && matches!(b.get(i + 1), Some(b'n' | b't' | b'r')) {
            i += 2;
        } else {
            break;
        }
    }
    i
}

/// The scan of the rule (see [`crate::rules::Rule::scan`]).
pub fn secret_values(
    text: &str,
    kw: usize,
    kw_end: usize,
    out: &mut dyn FnMut(usize, usize),
) -> usize {
    let b = text.as_bytes();
    let escaped = b[kw..kw_end].starts_with(b"\\\"");
    let Some(open) = object_start(b, kw) else {
        return kw_end;
    };
    let limit = kw.saturating_add(WINDOW).min(b.len());
    // Walk the object's members: `"key": value`, values skipped by depth.
    let mut i = open + 1;
    let mut end = kw_end;
    loop {
        i = skip_spaces(b, i, limit);
        let Some((ks, ke, after)) = (i < limit)
            .then(|| string_at(b, i, escaped, limit))
            .flatten()
        else {
            break;
        };
        let key = &b[ks..ke];
        i = skip_spaces(b, after, limit);
        if b.get(i) != Some(&b':') {
            break;
        }
        i = skip_spaces(b, i + 1, limit);
        if (key == b"data" || key == b"stringData") && b.get(i) == Some(&b'{') {
            // The values of the flat map.
            i += 1;
            loop {
                i = skip_spaces(b, i, limit);
                let Some((_, _, after)) = (i < limit)
                    .then(|| string_at(b, i, escaped, limit))
                    .flatten()
                else {
                    break;
                };
                i = skip_spaces(b, after, limit);
                if b.get(i) != Some(&b':') {
                    break;
                }
                i = skip_spaces(b, i + 1, limit);
                let Some((vs, ve, after)) = (i < limit)
                    .then(|| string_at(b, i, escaped, limit))
                    .flatten()
                else {
                    break;
                };
                if vs < ve
                    && text.is_char_boundary(vs)
                    && text.is_char_boundary(ve)
                    && !is_placeholder(&text[vs..ve])
                    && !is_reference(&text[vs..ve])
                {
                    out(vs, ve);
                }
                i = skip_spaces(b, after, limit);
                if b.get(i) == Some(&b',') {
                    i += 1;
                }
            }
            end = end.max(i);
        }
        // Skip the value: a string, or anything up to the comma at this depth.
        if let Some((_, _, after)) = string_at(b, i, escaped, limit) {
            i = after;
        } else {
            let mut depth = 0usize;
            while i < limit {
                match b[i] {
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' if depth == 0 => break,
                    b'}' | b']' => depth -= 1,
                    b',' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
        }
        i = skip_spaces(b, i, limit);
        if b.get(i) == Some(&b',') {
            i += 1;
        } else {
            break;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<&str> {
        let kw = text
            .find("\"kind\"")
            .or_else(|| text.find("\\\"kind\\\""))
            .unwrap_or(0);
        let mut v = Vec::new();
        secret_values(text, kw, kw + 6, &mut |s, e| v.push(&text[s..e]));
        v
    }

    #[test]
    fn data_values_before_and_after_kind() {
        let after = r#"{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"}, "data": {"password": "VnE4IW1aMnBMNHhS", "user": "c3Zj"}}"#;
        assert_eq!(values(after), ["VnE4IW1aMnBMNHhS", "c3Zj"]);
        let before = r#"{"data":{"token":"dG9rLTk4MjM="},"kind":"Secret"}"#;
        assert_eq!(values(before), ["dG9rLTk4MjM="]);
        let escaped =
            r#"{"output": "{\"kind\": \"Secret\", \"data\": {\"key\": \"a2V5LTQ0MQ==\"}}"}"#;
        assert_eq!(values(escaped), ["a2V5LTQ0MQ=="]);
    }

    #[test]
    fn not_a_secret_object() {
        // A ConfigMap's data beside a Secret in a list stays.
        let list = r#"{"items": [{"kind": "ConfigMap", "data": {"mode": "fast"}}, {"kind": "Secret", "type": "Opaque"}]}"#;
        let kw = list.rfind("\"kind\"").unwrap_or(0);
        let mut v = Vec::new();
        secret_values(list, kw, kw + 6, &mut |s, e| v.push(&list[s..e]));
        assert!(v.is_empty());
        assert!(values(r#"{"kind": "Secret", "data": {"password": "${DB_PASSWORD}"}}"#).is_empty());
    }
}
