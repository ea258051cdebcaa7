//! A fast path for JSON Lines items: each line deserialized straight into
//! the fields `lexical` reads (others skipped), without building a JSON
//! tree. Any line it cannot take as it is (a type it does not expect, a
//! repeated key, bad JSON) makes it give up, and the caller reads the file
//! the general way, whose errors name the file, row and field.

use rayon::prelude::*;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// One line's fields.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    /// The prediction (null reads as "").
    pub prediction: Option<String>,
    /// `references` (or the chosen reference field).
    pub references: Option<Vec<String>>,
    /// `reference`, when no reference field is chosen.
    pub reference: Option<Vec<String>>,
    /// The id as text (a string or an integer).
    pub id: Option<String>,
}

/// Which fields to take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wanted<'f> {
    /// The prediction field.
    pub prediction: &'f str,
    /// The reference field (none: `references`, else `reference`).
    pub reference: Option<&'f str>,
}

struct Texts;

impl<'de> Visitor<'de> for Texts {
    type Value = Vec<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a text or a list of texts")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(vec![v.to_string()])
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(vec![v])
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(vec![String::new()])
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(vec![String::new()])
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(s) = seq.next_element::<String>()? {
            out.push(s);
        }
        Ok(out)
    }
}

impl<'de> DeserializeSeed<'de> for Texts {
    type Value = Vec<String>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

struct Id;

impl<'de> Visitor<'de> for Id {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a non-empty string or an integer")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        if v.trim().is_empty() {
            return Err(E::custom("empty id"));
        }
        Ok(v.to_string())
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.to_string())
    }
}

impl<'de> DeserializeSeed<'de> for Id {
    type Value = String;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Wanted<'_> {
    type Value = Fields;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut out = Fields::default();
        let mut seen: Vec<String> = Vec::with_capacity(4);
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(A::Error::custom("duplicate key"));
            }
            if key == self.prediction {
                out.prediction = Some(map.next_value::<Option<String>>()?.unwrap_or_default());
            } else if Some(key.as_str()) == self.reference
                || (self.reference.is_none() && key == "references")
            {
                out.references = Some(map.next_value_seed(Texts)?);
            } else if self.reference.is_none() && key == "reference" {
                out.reference = Some(map.next_value_seed(Texts)?);
            } else if key == "id" {
                out.id = Some(map.next_value_seed(Id)?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
            seen.push(key);
        }
        Ok(out)
    }
}

impl<'de> DeserializeSeed<'de> for Wanted<'_> {
    type Value = Fields;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Fields, D::Error> {
        d.deserialize_map(self)
    }
}

/// The fields of every non-blank line, or `None` when some line is not
/// simply readable (the caller then reads the file the general way).
pub(crate) fn jsonl(text: &str, wanted: Wanted<'_>) -> Option<Vec<Fields>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let parsed: Vec<Option<Fields>> = lines
        .par_iter()
        .with_min_len(256)
        .map(|line| {
            let mut de = serde_json::Deserializer::from_str(line);
            let f = wanted.deserialize(&mut de).ok()?;
            de.end().ok()?;
            Some(f)
        })
        .collect();
    parsed.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_gives_up_on_odd_ones() {
        let w = Wanted {
            prediction: "prediction",
            reference: None,
        };
        let got = jsonl(
            "{\"id\": \"p0\", \"prediction\": \"a b\", \"reference\": \"c\"}\n\n{\"id\": 3, \"prediction\": null, \"references\": [\"x\", \"y\"], \"other\": {\"k\": [1]}}\n",
            w,
        )
        .expect("simple lines");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].prediction.as_deref(), Some("a b"));
        assert_eq!(got[0].reference.as_deref(), Some(&["c".to_string()][..]));
        assert_eq!(got[1].id.as_deref(), Some("3"));
        assert_eq!(got[1].prediction.as_deref(), Some(""));
        assert_eq!(got[1].references.as_ref().map(Vec::len), Some(2));
        assert!(jsonl("{\"prediction\": 3}\n", w).is_none());
        assert!(jsonl("{\"prediction\": \"a\", \"prediction\": \"b\"}\n", w).is_none());
        assert!(jsonl("{\"id\": 1.5, \"prediction\": \"a\"}\n", w).is_none());
    }
}
