//! Kubernetes `Secret` manifests in YAML: at a `kind: Secret` line, every
//! value under the same mapping's `data:` and `stringData:` keys is a
//! secret (base64 or plain), whatever its key is called. The keys stay, so
//! a reader still sees which entries the Secret held.
//!
//! The mapping is the `kind:` line's siblings: lines at its indentation
//! (deeper ones nested in them), up to a line less indented, a `---`
//! document separator or the next item of a list (`- ` one level up, as in
//! `kubectl get secrets -o yaml`). `data:` may come before `kind:` (kubectl
//! prints keys sorted). Work is bounded: at most [`WINDOW`] bytes either
//! side of the keyword.

use crate::placeholders::{is_placeholder, is_reference};

/// The most bytes looked at on either side of a `kind: Secret` keyword.
pub const WINDOW: usize = 16 * 1024;

/// One line: its byte range without the line break and its indentation.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    indent: usize,
}

fn line_at(bytes: &[u8], start: usize, limit: usize) -> Line {
    let mut end = start;
    while end < limit && bytes[end] != b'\n' {
        end += 1;
    }
    let content_end = if end > start && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    };
    let mut indent = 0;
    // Tabs count as indentation too (not valid YAML, but written).
    while start + indent < content_end && matches!(bytes[start + indent], b' ' | b'\t') {
        indent += 1;
    }
    Line {
        start,
        end: content_end,
        indent,
    }
}

fn is_blank(bytes: &[u8], l: &Line) -> bool {
    l.start + l.indent >= l.end || bytes[l.start + l.indent] == b'#'
}

fn is_separator(bytes: &[u8], l: &Line) -> bool {
    bytes[l.start..l.end].starts_with(b"---") || bytes[l.start..l.end].starts_with(b"...")
}

/// A list item's first line (`- key: …`) one level above `indent`.
fn is_item_start(bytes: &[u8], l: &Line, indent: usize) -> bool {
    l.indent + 2 == indent && bytes[l.start + l.indent..l.end].starts_with(b"- ")
}

/// Reports the span of every value under `data:` / `stringData:` of the
/// Secret whose `kind: Secret` keyword is at `kw..kw_end`. Returns where
/// the walk stopped: a later keyword before it is in the same mapping
/// (the engine does not scan it again).
pub fn secret_values(
    text: &str,
    kw: usize,
    kw_end: usize,
    out: &mut dyn FnMut(usize, usize),
) -> usize {
    let bytes = text.as_bytes();
    // The keyword must be the whole value (not `kind: SecretStore`): only
    // spaces up to the line's end, which must be near.
    let tail = &bytes[kw_end..bytes.len().min(kw_end + 16)];
    let value = tail
        .iter()
        .position(|&b| b == b'\n')
        .map_or(tail, |n| &tail[..n]);
    if (value.len() == tail.len() && kw_end + tail.len() < bytes.len())
        || !value
            .iter()
            .all(|&b| matches!(b, b' ' | b'\r' | b'\t' | b'"' | b'\''))
    {
        return kw_end;
    }
    // The line's start: a little indentation before `kind:` at most.
    let head_floor = kw.saturating_sub(64);
    let line_start = match bytes[head_floor..kw].iter().rposition(|&b| b == b'\n') {
        Some(n) => head_floor + n + 1,
        None if head_floor == 0 => 0,
        None => return kw_end,
    };
    let kind_line = line_at(bytes, line_start, bytes.len());
    // `kind:` starts its line (after the indentation, or after `- `).
    let head = &bytes[kind_line.start + kind_line.indent..kw];
    let indent = match head {
        [] => kind_line.indent,
        b"- " => kind_line.indent + 2,
        _ => return kw_end,
    };
    let floor = kw.saturating_sub(WINDOW);
    let ceiling = kw.saturating_add(WINDOW).min(bytes.len());
    // The mapping's first line.
    let mut first = kind_line.start;
    if head.is_empty() {
        let mut at = kind_line.start;
        while at > floor {
            let prev_start = match bytes[floor..at - 1].iter().rposition(|&b| b == b'\n') {
                Some(n) => floor + n + 1,
                None if floor == 0 => 0,
                None => break,
            };
            let l = line_at(bytes, prev_start, at - 1);
            if is_blank(bytes, &l) || (l.indent >= indent && !is_separator(bytes, &l)) {
                first = l.start;
                at = l.start;
                if at == 0 {
                    break;
                }
                continue;
            }
            if is_item_start(bytes, &l, indent) {
                first = l.start;
            }
            break;
        }
    }
    // Walk the mapping's lines from its first to its last.
    let mut at = first;
    let mut in_data: Option<usize> = None; // indentation of the `data:` key
    let mut block: Option<usize> = None; // indentation of a `key: |` entry
    while at < ceiling {
        let l = line_at(bytes, at, ceiling);
        let next =
            l.end + usize::from(l.end < ceiling) + usize::from(bytes.get(l.end) == Some(&b'\r'));
        at = next.max(at + 1);
        if is_blank(bytes, &l) {
            continue;
        }
        let item = l.start < kind_line.start && is_item_start(bytes, &l, indent);
        let own_indent = if item { indent } else { l.indent };
        if l.start > kind_line.start && (l.indent < indent || is_separator(bytes, &l)) {
            break;
        }
        let content_start = l.start + own_indent;
        if let Some(key_indent) = block {
            if own_indent > key_indent {
                report(text, content_start, l.end, out);
                continue;
            }
            block = None;
        }
        if own_indent == indent {
            let content = &bytes[content_start..l.end];
            in_data = (content.starts_with(b"data:") || content.starts_with(b"stringData:"))
                .then_some(indent);
            continue;
        }
        let Some(data_indent) = in_data else {
            continue;
        };
        if own_indent <= data_indent {
            continue;
        }
        // `key: value` under `data:`.
        let content = &bytes[content_start..l.end];
        let Some(colon) = content.iter().position(|&b| b == b':') else {
            continue;
        };
        let mut v = content_start + colon + 1;
        while v < l.end && (bytes[v] == b' ' || bytes[v] == b'\t') {
            v += 1;
        }
        if v >= l.end {
            continue;
        }
        if matches!(bytes[v], b'|' | b'>') {
            block = Some(own_indent);
            continue;
        }
        report(text, v, l.end, out);
    }
    at.max(kw_end)
}

/// One value: its quotes and trailing spaces dropped; placeholders kept.
fn report(text: &str, mut s: usize, mut e: usize, out: &mut dyn FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    while e > s && matches!(bytes[e - 1], b' ' | b'\t') {
        e -= 1;
    }
    if e >= s + 2 && matches!(bytes[s], b'"' | b'\'') && bytes[e - 1] == bytes[s] {
        s += 1;
        e -= 1;
    }
    if s >= e || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
        return;
    }
    if is_placeholder(&text[s..e]) || is_reference(&text[s..e]) {
        return;
    }
    out(s, e);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<&str> {
        let mut spans = Vec::new();
        let kw = text.find("kind: Secret").unwrap_or(0);
        secret_values(text, kw, kw + "kind: Secret".len(), &mut |s, e| {
            spans.push(&text[s..e])
        });
        spans
    }

    #[test]
    fn data_after_and_before_kind() {
        let after = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n  labels:\n    data: kept\ndata:\n  user: dXNlcg==\n  pass: \"cGFzcw==\"\nstringData:\n  note: plain words\n  cert: |\n    line one\n    line two\ntype: Opaque\n";
        assert_eq!(
            values(after),
            [
                "dXNlcg==",
                "cGFzcw==",
                "plain words",
                "line one",
                "line two"
            ]
        );
        let before = "apiVersion: v1\ndata:\n  token: dG9rZW4=\nkind: Secret\n";
        assert_eq!(values(before), ["dG9rZW4="]);
    }

    #[test]
    fn list_items_and_documents_are_separate() {
        let list = "items:\n- apiVersion: v1\n  data:\n    mode: ZmFzdA==\n  kind: ConfigMap\n- apiVersion: v1\n  data:\n    key: a2V5a2V5\n  kind: Secret\n";
        assert_eq!(values(list), ["a2V5a2V5"]);
        let docs = "kind: ConfigMap\ndata:\n  mode: ZmFzdA==\n---\nkind: Secret\ndata:\n  key: a2V5a2V5\n---\ndata:\n  other: b3RoZXI=\n";
        assert_eq!(values(docs), ["a2V5a2V5"]);
    }

    #[test]
    fn work_is_bounded_and_a_mapping_walked_once() {
        // No line end near the keyword, or the keyword deep in a long line.
        let long = format!("kind: Secret{}\ndata:\n  a: YWJj\n", " ".repeat(100));
        assert!(values(&long).is_empty());
        let deep = format!("{}kind: Secret\ndata:\n  a: YWJj\n", " ".repeat(100));
        assert!(values(&deep).is_empty());
        // The walk's end covers a repeated keyword in the same mapping.
        let text = "kind: Secret\nkind: Secret\ndata:\n  a: YWJj\n";
        let until = secret_values(text, 0, 12, &mut |_, _| {});
        assert!(until > 13, "{until}");
        // A walk stops at the window's edge.
        let big = format!(
            "kind: Secret\n{}data:\n  a: YWJj\n",
            "b: c\n".repeat(WINDOW)
        );
        assert!(values(&big).is_empty());
        assert!(secret_values(&big, 0, 12, &mut |_, _| {}) <= WINDOW + 1);
    }

    #[test]
    fn not_a_secret_manifest() {
        assert!(values("kind: SecretStore\ndata:\n  a: YWJj\n").is_empty());
        assert!(values("the kind: Secret\ndata:\n  a: YWJj\n").is_empty());
        assert!(values("kind: Secret\ndata:\n  a: ${VALUE}\n").is_empty());
    }
}
