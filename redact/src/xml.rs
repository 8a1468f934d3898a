//! XML credentials: the value of an element or attribute named after a
//! secret, in the shapes configuration files write it —
//! `<db_password>…</db_password>` (the content, trimmed; also on lines of
//! its own), `<api_token value="…"/>`, `<entry name="smtp_password"
//! value="…"/>` (the `value` attribute beside a `name` or `key` naming a
//! secret, before or after it), `<param name="token">…</param>`,
//! `<entry db_password_attr="…"/>`. The value
//! must have a secret's shape ([`crate::assign::is_secretish`]); the names
//! stay.

use crate::assign::is_secretish;

/// The most bytes a tag may take, searched back from the keyword.
const MAX_TAG: usize = 512;
/// The longest element content looked at.
const MAX_CONTENT: usize = 512;

/// One attribute of a tag: its name's and its value's byte ranges.
struct Attr {
    name: (usize, usize),
    value: (usize, usize),
}

/// A start tag at `lt` (`<`): its name's range, its attributes, where it
/// ends (after `>`) and whether it closes itself (`/>`).
struct Tag {
    name: (usize, usize),
    attrs: Vec<Attr>,
    end: usize,
    self_closing: bool,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
}

fn skip_spaces(b: &[u8], mut i: usize, limit: usize) -> usize {
    while i < limit && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Parses the start tag at `lt`, quotes respected; `None` if it is not
/// one or does not end within [`MAX_TAG`].
fn parse_tag(b: &[u8], lt: usize) -> Option<Tag> {
    let limit = lt.saturating_add(MAX_TAG).min(b.len());
    let mut i = skip_spaces(b, lt + 1, limit);
    let ns = i;
    while i < limit && is_name_byte(b[i]) {
        i += 1;
    }
    if i == ns {
        return None;
    }
    let name = (ns, i);
    let mut attrs = Vec::new();
    loop {
        i = skip_spaces(b, i, limit);
        match b.get(i) {
            _ if i >= limit => return None,
            Some(b'>') => {
                return Some(Tag {
                    name,
                    attrs,
                    end: i + 1,
                    self_closing: false,
                });
            }
            Some(b'/') if b.get(i + 1) == Some(&b'>') => {
                return Some(Tag {
                    name,
                    attrs,
                    end: i + 2,
                    self_closing: true,
                });
            }
            _ => {}
        }
        let an = i;
        while i < limit && is_name_byte(b[i]) {
            i += 1;
        }
        if i == an {
            return None;
        }
        let aname = (an, i);
        i = skip_spaces(b, i, limit);
        if b.get(i) != Some(&b'=') {
            continue;
        }
        i = skip_spaces(b, i + 1, limit);
        let q = *b.get(i)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        let vs = i + 1;
        let ve = vs + b.get(vs..limit)?.iter().position(|&c| c == q)?;
        attrs.push(Attr {
            name: aname,
            value: (vs, ve),
        });
        i = ve + 1;
    }
}

/// The element's content after its start tag, trimmed, when it runs up to
/// a closing tag (`</`) and holds no other markup.
fn content(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let limit = from.saturating_add(MAX_CONTENT).min(b.len());
    let close = from + b[from..limit].windows(2).position(|w| w == b"</")?;
    let s = skip_spaces(b, from, close);
    let mut e = close;
    while e > s && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    if b[s..e].contains(&b'<') {
        return None;
    }
    Some((s, e))
}

fn within(kw: usize, r: (usize, usize)) -> bool {
    r.0 <= kw && kw < r.1
}

/// The scan of the rule (see [`crate::rules::Rule::scan`]): at a secret
/// word, the value of the XML element or attribute it names.
pub fn secret_values(
    text: &str,
    kw: usize,
    kw_end: usize,
    out: &mut dyn FnMut(usize, usize),
) -> usize {
    let b = text.as_bytes();
    // Cheap test first (most occurrences of `token` are prose or JSON
    // keys): the name holding the keyword must follow `<` (an element's
    // name) or `="` (an attribute's value), or be followed by `="`.
    let name_start = crate::text::scan_back(b, kw, 64, is_name_byte);
    let mut p = name_start;
    while p > 0 && name_start - p < 4 && matches!(b[p - 1], b' ' | b'\t') {
        p -= 1;
    }
    let element = p > 0 && b[p - 1] == b'<';
    let attribute_value = name_start > 0
        && matches!(b[name_start - 1], b'"' | b'\'')
        && b[..name_start - 1]
            .iter()
            .rev()
            .take(4)
            .find(|&&c| c != b' ' && c != b'\t')
            == Some(&b'=');
    // Or `=` and a quote after it (an attribute's name: `the_password_att="…"`).
    let mut name_end = kw_end;
    while name_end < b.len() && name_end - kw_end < 64 && is_name_byte(b[name_end]) {
        name_end += 1;
    }
    let after = skip_spaces(b, name_end, b.len().min(name_end + 4));
    let attribute_name = b.get(after) == Some(&b'=')
        && matches!(
            b.get(skip_spaces(b, after + 1, b.len().min(after + 5))),
            Some(b'"' | b'\'')
        );
    if !element && !attribute_value && !attribute_name {
        return kw_end;
    }
    let floor = kw.saturating_sub(MAX_TAG);
    let Some(lt) = b[floor..kw]
        .iter()
        .rposition(|&c| c == b'<')
        .map(|p| floor + p)
    else {
        return kw_end;
    };
    let Some(tag) = parse_tag(b, lt) else {
        return kw_end;
    };
    if kw >= tag.end {
        return kw_end;
    }
    let value_attr = tag
        .attrs
        .iter()
        .find(|a| b[a.name.0..a.name.1].eq_ignore_ascii_case(b"value"));
    let mut found: Option<(usize, usize)> = None;
    if within(kw, tag.name) {
        // `<db_password>…</db_password>` or `<db_password value="…"/>`.
        found = value_attr
            .map(|a| a.value)
            .or_else(|| (!tag.self_closing).then(|| content(b, tag.end)).flatten());
    } else if let Some(a) = tag.attrs.iter().find(|a| within(kw, a.name)) {
        // `<entry db_password="…"/>`.
        found = Some(a.value);
    } else if let Some(a) = tag.attrs.iter().find(|a| within(kw, a.value)) {
        // `<entry name="db_password" value="…"/>` or `<param name="…">…</param>`.
        let named = [&b"name"[..], b"key", b"id"]
            .iter()
            .any(|n| b[a.name.0..a.name.1].eq_ignore_ascii_case(n));
        if named {
            found = value_attr
                .map(|a| a.value)
                .or_else(|| (!tag.self_closing).then(|| content(b, tag.end)).flatten());
        }
    }
    if let Some((s, e)) = found {
        if s < e
            && text.is_char_boundary(s)
            && text.is_char_boundary(e)
            && is_secretish(&text[s..e])
        {
            out(s, e);
        }
    }
    kw_end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str, word: &str) -> Vec<String> {
        let mut v = Vec::new();
        let mut from = 0;
        while let Some(i) = text[from..].find(word) {
            let kw = from + i;
            secret_values(text, kw, kw + word.len(), &mut |s, e| {
                v.push(text[s..e].to_string())
            });
            from = kw + 1;
        }
        v
    }

    #[test]
    fn elements_and_attributes() {
        assert_eq!(
            values("<db_password>Qm7#zR2vK9</db_password>", "password"),
            ["Qm7#zR2vK9"]
        );
        assert_eq!(
            values("<apiToken>\n    Hx4pQ9mZ2rT7\n</apiToken>", "Token"),
            ["Hx4pQ9mZ2rT7"]
        );
        assert_eq!(
            values(r#"<smtp_password value="Lp3!vX8qN2"/>"#, "password"),
            ["Lp3!vX8qN2"]
        );
        assert_eq!(
            values(
                r#"<entry value="Lp3!vX8qN2" name="smtp_password"/>"#,
                "password"
            ),
            ["Lp3!vX8qN2"]
        );
        assert_eq!(
            values(r#"<param name="token">Wd8vR4kZ1pQ6</param>"#, "token"),
            ["Wd8vR4kZ1pQ6"]
        );
        assert_eq!(
            values(
                r#"<x a="1>" name="b_secret" value='Yt6mP2wQ9z'/>"#,
                "secret"
            ),
            ["Yt6mP2wQ9z"]
        );
    }

    #[test]
    fn not_secrets() {
        assert!(values("<password_policy>strict</password_policy>", "password").is_empty());
        assert!(values(r#"<entry name="password" value="" />"#, "password").is_empty());
        assert!(values(
            r#"<entry label="password" value="Lp3!vX8qN2"/>"#,
            "password"
        )
        .is_empty());
        assert!(values("<db_password>${DB_PASSWORD}</db_password>", "password").is_empty());
        assert!(values("the <b>password</b> is asked twice", "password").is_empty());
        assert!(values("<token><nested>Hx4pQ9mZ2rT7</nested></token>", "token").is_empty());
    }
}
