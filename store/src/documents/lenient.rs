//! Reading documents as leniently as Go's `encoding/json` decoder does.
//!
//! Before serde sees a document, [`normalize`] rewrites each object that a
//! [`Shape`] describes: keys are matched to the known field names exactly,
//! else ASCII-case-insensitively; unknown keys are dropped; when a key
//! repeats the last one wins; `null` leaves a field at its zero value (the
//! key is dropped) except for raw JSON fields, which keep it. Raw fields and
//! numbers are copied as text, so nothing is reformatted.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// How a field's value is read.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Any scalar (or a value serde reads as is).
    Plain,
    /// A list of strings: `null` elements read as `""`.
    Strings,
    /// A nested object of this shape.
    Object(&'static Shape),
    /// A list of objects of this shape: `null` elements read as `{}`.
    List(&'static Shape),
    /// `json.RawMessage`: kept verbatim, `null` included.
    Raw,
    /// A list Go decodes into its own struct type we keep as raw JSON:
    /// `null` and `[]` both mean "none" (Go omits an empty slice).
    RawList,
}

/// The known fields of one document type, by their JSON names.
#[derive(Debug)]
pub struct Shape {
    /// `(name, kind)` of every field, in Go declaration order.
    pub fields: &'static [(&'static str, Kind)],
}

/// Why a document could not be normalized.
#[derive(Debug)]
pub struct NotJson(pub String);

impl fmt::Display for NotJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Rewrites `text` (one JSON object of `shape`) into canonical JSON that
/// serde's derived, case-sensitive readers accept with Go's leniency.
///
/// # Errors
/// [`NotJson`] when `text` is not JSON or not an object.
pub fn normalize(text: &str, shape: &Shape) -> Result<String, NotJson> {
    let raw: &RawValue = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| NotJson(e.to_string()))?;
    let mut out = String::with_capacity(text.len());
    object(raw, shape, &mut out)?;
    Ok(out)
}

fn object(raw: &RawValue, shape: &Shape, out: &mut String) -> Result<(), NotJson> {
    let pairs: Pairs<'_> =
        serde_json::from_str(raw.get()).map_err(|e| NotJson(format!("expected an object: {e}")))?;
    let mut slots: Vec<Option<&RawValue>> = vec![None; shape.fields.len()];
    for (key, value) in pairs.0 {
        let exact = shape.fields.iter().position(|(name, _)| *name == key);
        let index = exact.or_else(|| {
            shape
                .fields
                .iter()
                .position(|(name, _)| name.eq_ignore_ascii_case(&key))
        });
        if let Some(i) = index {
            slots[i] = Some(value);
        }
    }
    out.push('{');
    let mut first = true;
    for ((name, kind), value) in shape.fields.iter().zip(slots) {
        let Some(value) = value else { continue };
        let is_null = value.get() == "null";
        let empty_list = matches!(kind, Kind::RawList) && is_empty_array(value);
        if (is_null && !matches!(kind, Kind::Raw)) || empty_list {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
        match kind {
            Kind::Plain | Kind::Raw | Kind::RawList => out.push_str(value.get()),
            Kind::Object(inner) => object(value, inner, out)?,
            Kind::Strings => list(value, out, |item, out| {
                out.push_str(if item.get() == "null" {
                    "\"\""
                } else {
                    item.get()
                });
                Ok(())
            })?,
            Kind::List(inner) => list(value, out, |item, out| {
                if item.get() == "null" {
                    out.push_str("{}");
                    Ok(())
                } else {
                    object(item, inner, out)
                }
            })?,
        }
    }
    out.push('}');
    Ok(())
}

fn list(
    raw: &RawValue,
    out: &mut String,
    mut item: impl FnMut(&RawValue, &mut String) -> Result<(), NotJson>,
) -> Result<(), NotJson> {
    let items: Vec<&RawValue> =
        serde_json::from_str(raw.get()).map_err(|e| NotJson(format!("expected a list: {e}")))?;
    out.push('[');
    for (i, value) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(value, out)?;
    }
    out.push(']');
    Ok(())
}

fn is_empty_array(raw: &RawValue) -> bool {
    let text = raw.get();
    text.starts_with('[')
        && text
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim()
            .is_empty()
}

/// An object's members in document order, values unparsed.
struct Pairs<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Pairs<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Pairs<'a>, D::Error> {
        struct PairsVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for PairsVisitor<'a> {
            type Value = Pairs<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Pairs<'a>, M::Error> {
                let mut pairs = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    pairs.push((key, value));
                }
                Ok(Pairs(pairs))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, _: S) -> Result<Pairs<'a>, S::Error> {
                Err(de::Error::custom("expected a JSON object, found a list"))
            }
        }
        deserializer.deserialize_map(PairsVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static INNER: Shape = Shape {
        fields: &[("x", Kind::Plain), ("self", Kind::Object(&INNER))],
    };
    static OUTER: Shape = Shape {
        fields: &[
            ("name", Kind::Plain),
            ("tags", Kind::Strings),
            ("inner", Kind::Object(&INNER)),
            ("items", Kind::List(&INNER)),
            ("raw", Kind::Raw),
            ("events", Kind::RawList),
        ],
    };

    #[test]
    fn folds_case_drops_unknown_and_nulls_last_wins() {
        let got = normalize(
            r#"{"NAME":"a","name":"b","Name":"c","zzz":1,"tags":[null,"t"],"inner":null,
                "items":[null,{"X":2,"Self":{"x":3}}],"raw":null,"events":[]}"#,
            &OUTER,
        )
        .unwrap();
        assert_eq!(
            got,
            r#"{"name":"c","tags":["","t"],"items":[{},{"x":2,"self":{"x":3}}],"raw":null}"#
        );
    }

    #[test]
    fn exact_match_beats_fold_only_by_order() {
        // Go assigns in document order; a later folded key overwrites.
        let got = normalize(r#"{"name":"a","NAME":"b"}"#, &OUTER).unwrap();
        assert_eq!(got, r#"{"name":"b"}"#);
    }

    #[test]
    fn raw_values_and_numbers_are_kept_verbatim() {
        let got = normalize(
            r#"{"raw":{ "b" : 1.50 , "a":[ ] },"events":[{"k":1e3}]}"#,
            &OUTER,
        )
        .unwrap();
        assert_eq!(
            got,
            r#"{"raw":{ "b" : 1.50 , "a":[ ] },"events":[{"k":1e3}]}"#
        );
    }

    #[test]
    fn refuses_what_is_not_an_object() {
        assert!(normalize("[1]", &OUTER).is_err());
        assert!(normalize("{", &OUTER).is_err());
        assert!(normalize(r#"{"inner":[1]}"#, &OUTER).is_err());
    }
}
