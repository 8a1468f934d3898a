//! The one encoder that writes documents with the bytes Go's
//! `encoding/json` gives them (`Encoder` with `SetIndent("", "  ")`):
//! serde writes compact JSON, then [`go_indent`] does what Go's `Indent`
//! and HTML escaping do, and a final `\n` is added.
//!
//! serde_json and Go escape strings the same way (`\"`, `\\`, `\b`, `\f`,
//! `\n`, `\r`, `\t`, other control characters as lowercase `\u00XX`); Go
//! also escapes `<`, `>`, `&`, U+2028 and U+2029, which [`go_indent`] adds.
//! Go writes floats its own way ([`go_float`]); raw JSON values
//! (`json.RawMessage`) are compacted and HTML-escaped like the rest.

use serde::Serialize;
use serde_json::value::RawValue;

use agent_checkpoint::{Error, Result};

/// Encodes `value` as Go's JSON encoder does with a two-space indent,
/// ending in `\n`.
///
/// # Errors
/// [`Error::InvalidArgument`] if serde refuses the value (a float that is
/// not finite, a raw value that is not JSON).
pub fn to_go_json<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    let compact = serde_json::to_string(value)
        .map_err(|e| Error::invalid_argument("document", e.to_string()))?;
    let mut out = go_indent(&compact);
    out.push('\n');
    Ok(out)
}

/// Re-indents compact (or whitespace-laden) JSON text the way Go's
/// `json.Indent(dst, src, "", "  ")` does after `json.Marshal` with HTML
/// escaping: whitespace outside strings is dropped, `{`/`[` open an indented
/// block unless empty, `,` starts a new line, `:` is followed by a space.
pub fn go_indent(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    // After an opening bracket we wait for the next token to decide whether
    // the block is empty.
    let mut pending_open = false;
    for c in json.chars() {
        if in_string {
            if escaped {
                escaped = false;
                out.push(c);
                continue;
            }
            match c {
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '<' => out.push_str("\\u003c"),
                '>' => out.push_str("\\u003e"),
                '&' => out.push_str("\\u0026"),
                '\u{2028}' => out.push_str("\\u2028"),
                '\u{2029}' => out.push_str("\\u2029"),
                _ => out.push(c),
            }
            continue;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        if pending_open {
            pending_open = false;
            if c == '}' || c == ']' {
                out.push(c);
                continue;
            }
            depth += 1;
            newline(&mut out, depth);
        }
        match c {
            '{' | '[' => {
                out.push(c);
                pending_open = true;
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            '"' => {
                in_string = true;
                out.push('"');
            }
            _ => out.push(c),
        }
    }
    out
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Formats a float as Go's JSON encoder does for `float64`: the shortest
/// text that reads back the same, in plain notation unless the magnitude is
/// below 1e-6 or at least 1e21, then as `1e-7` / `1e+21`.
///
/// # Errors
/// [`Error::InvalidArgument`] for NaN and infinities (Go refuses them too).
pub fn go_float(f: f64) -> Result<String> {
    if !f.is_finite() {
        return Err(Error::invalid_argument(
            "number",
            format!("{f} cannot be written as JSON"),
        ));
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return Ok(format!("{f}"));
    }
    let text = format!("{f:e}");
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return Ok(text);
    };
    let exponent: i32 = exponent
        .parse()
        .map_err(|_| Error::invalid_argument("number", format!("cannot format {f}")))?;
    let sign = if exponent < 0 { '-' } else { '+' };
    let digits = exponent.unsigned_abs();
    // Go's 'e' format writes at least two exponent digits, then the JSON
    // encoder shortens a negative one-digit exponent back (`e-07` -> `e-7`).
    Ok(if sign == '-' && digits < 10 {
        format!("{mantissa}e-{digits}")
    } else {
        format!("{mantissa}e{sign}{digits:02}")
    })
}

/// `serialize_with` for `float64` fields: writes [`go_float`]'s text.
pub(crate) fn serialize_go_float<S: serde::Serializer>(
    f: &f64,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    let text = go_float(*f).map_err(serde::ser::Error::custom)?;
    let raw = RawValue::from_string(text).map_err(serde::ser::Error::custom)?;
    raw.serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_like_go() {
        assert_eq!(go_indent(r#"{"a":1,"b":[],"c":{},"d":[1,{"e":null}]}"#),
            "{\n  \"a\": 1,\n  \"b\": [],\n  \"c\": {},\n  \"d\": [\n    1,\n    {\n      \"e\": null\n    }\n  ]\n}");
        assert_eq!(
            go_indent(r#"{ "a" : [ 1 , 2 ] }"#),
            "{\n  \"a\": [\n    1,\n    2\n  ]\n}"
        );
        assert_eq!(go_indent("[ ]"), "[]");
    }

    #[test]
    fn escapes_html_and_line_separators_in_strings_only() {
        assert_eq!(
            go_indent("{\"<k>\":\"a<b>&c\\\"<\u{2028}\u{2029}\"}"),
            "{\n  \"\\u003ck\\u003e\": \"a\\u003cb\\u003e\\u0026c\\\"\\u003c\\u2028\\u2029\"\n}"
        );
        // An escaped backslash before a quote ends the string.
        assert_eq!(go_indent(r#"["\\",1]"#), "[\n  \"\\\\\",\n  1\n]");
    }

    #[test]
    fn floats_like_go() {
        for (f, want) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (50.0, "50"),
            (33.333333333333336, "33.333333333333336"),
            (0.5, "0.5"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.25e300, "1.25e+300"),
            (-2e-7, "-2e-7"),
        ] {
            assert_eq!(go_float(f).unwrap(), want, "{f}");
        }
        assert!(go_float(f64::NAN).is_err());
        assert!(go_float(f64::INFINITY).is_err());
    }

    #[test]
    fn documents_end_with_a_newline() {
        assert_eq!(
            to_go_json(&serde_json::json!({"a": "<"})).unwrap(),
            "{\n  \"a\": \"\\u003c\"\n}\n"
        );
    }
}
