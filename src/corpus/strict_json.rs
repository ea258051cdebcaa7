//! Strict JSON input: a UTF-8 byte-order mark is accepted (and skipped), a
//! key repeated inside one object is an error at its line:column (instead
//! of serde_json's silent last-wins).

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The UTF-8 byte-order mark.
const BOM: &str = "\u{feff}";

/// `text` without a leading byte-order mark.
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub(crate) fn strip_bom_bytes(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes)
}

/// Parses a whole JSON document (a leading byte-order mark skipped); a
/// duplicate key is an error naming the key, at its line:column.
///
/// Example: the unit test `a_bom_is_dropped_and_a_duplicate_key_named_where_it_stands`.
pub(crate) fn parse_str(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(strip_bom(text));
    let value = StrictValue.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// [`parse_str`] over bytes (UTF-8 is checked by the parser).
pub(crate) fn parse_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(strip_bom_bytes(bytes));
    let value = StrictValue.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON value that refuses duplicate keys (a seed for nested values).
pub(crate) struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        StrictValue.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(A::Error::custom(format!(
                    "duplicate key {:?}",
                    super::Preview(&key)
                )));
            }
            let value = map.next_value_seed(StrictValue)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bom_is_dropped_and_a_duplicate_key_named_where_it_stands() {
        assert_eq!(parse_str("\u{feff}{\"a\": 1}").unwrap()["a"], 1);
        let e = parse_str("{\"a\": 1,\n \"a\": 2}").unwrap_err();
        assert!(e.to_string().contains("duplicate key \"a\""), "{e}");
        assert_eq!((e.line(), e.column()), (2, 4)); // just after the repeated key
    }

    use super::*;

    #[test]
    fn same_values_as_serde_json() {
        let text = r#"{"a": [1, -2, 3.5, 1e300, "x\u00e9", null, true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            parse_str(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }

    #[test]
    fn duplicates_anywhere_are_errors() {
        for text in [r#"{"a": 1, "a": 1}"#, r#"[{"x": {"k": 1, "k": 2}}]"#] {
            assert!(parse_str(text)
                .unwrap_err()
                .to_string()
                .contains("duplicate key"));
        }
        // The same key in sibling objects is fine.
        assert!(parse_str(r#"[{"a": 1}, {"a": 2}]"#).is_ok());
    }

    #[test]
    fn bom_is_skipped_and_trailing_text_refused() {
        assert_eq!(parse_slice(b"\xEF\xBB\xBF[1]").unwrap()[0], 1);
        assert!(parse_str("[1] x").is_err());
    }
}
