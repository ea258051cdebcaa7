//! HotpotQA inputs: the simple format (arrays of `{"answer", "citations"}`)
//! and the official one (HotpotQA gold JSON and leaderboard predictions).
//!
//! Gold files of the official format carry every paragraph of context
//! (~45 MB for the dev set); they are deserialized into records holding
//! only `_id`, `answer`, `question` and `supporting_facts`, and serde skips
//! the rest without building it.

use super::{json_error, CorpusError};
use serde::de::DeserializeSeed;
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One prediction or gold record of the simple format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleItem {
    /// The answer text.
    pub answer: String,
    /// Cited passage indices (duplicates allowed; compared as sets).
    pub citations: Vec<i64>,
}

/// A supporting fact: (paragraph title, sentence index).
pub type SupportingFact = (String, i64);

/// One gold record of the official format.
#[derive(Debug, Clone)]
pub struct OfficialGold {
    /// `_id`.
    pub id: String,
    /// The gold answer.
    pub answer: String,
    /// The gold supporting facts.
    pub supporting_facts: Vec<SupportingFact>,
}

/// One record of a simple-format file.
#[derive(Debug, Clone)]
pub(crate) struct SimpleRecord {
    /// `id`, when given (a number is kept as its decimal text).
    pub id: Option<String>,
    /// `question`, when given.
    pub question: Option<String>,
    /// Answer and citations.
    pub item: SimpleItem,
}

/// One gold record of the official format.
#[derive(Debug, Clone)]
pub(crate) struct OfficialGoldRecord {
    /// Id, answer and supporting facts.
    pub gold: OfficialGold,
    /// The question text, when the file has it.
    pub question: Option<String>,
}

/// An official-format prediction file.
#[derive(Debug, Clone, Default)]
pub(crate) struct OfficialPredictions {
    /// Predicted answer per id.
    pub answer: HashMap<String, String>,
    /// Predicted supporting facts per id.
    pub sp: HashMap<String, Vec<SupportingFact>>,
}

fn record_err(path: &Path, record: String, field: &str, message: String) -> CorpusError {
    CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message,
    }
}

fn describe(v: &Value) -> String {
    let text = v.to_string();
    let kind = super::json_kind(v);
    if text.chars().count() > 40 {
        let head: String = text.chars().take(40).collect();
        format!("{kind} ({head}…)")
    } else {
        format!("{kind} ({text})")
    }
}

/// A string field: `None` when absent or null, an error naming the record
/// and field when it holds anything but a string.
fn string_field(
    path: &Path,
    record: &dyn Fn() -> String,
    field: &str,
    v: Option<Value>,
) -> Result<Option<String>, CorpusError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(record_err(
            path,
            record(),
            field,
            format!("expected a string, found {}", describe(&other)),
        )),
    }
}

/// An integer from a JSON number; integral floats such as `2.0` count (the
/// reference scripts compare them equal to `2`).
fn as_integer(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        _ => None,
    }
}

/// `true` when a parsed prediction file is in the official format (an
/// object with `answer` and `sp`).
pub(crate) fn is_official_predictions(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.contains_key("answer") && o.contains_key("sp"))
}

/// Parses a simple-format file (already parsed as JSON).
pub(crate) fn simple_records(path: &Path, doc: &Value) -> Result<Vec<SimpleRecord>, CorpusError> {
    let items = doc.as_array().ok_or_else(|| {
        record_err(
            path,
            "(file)".into(),
            "(top level)",
            format!(
                "expected an array of {{\"answer\", \"citations\"}} records, found {}",
                describe(doc)
            ),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(index, v)| simple_record(path, index, v))
        .collect()
}

fn simple_record(path: &Path, index: usize, v: &Value) -> Result<SimpleRecord, CorpusError> {
    let Some(obj) = v.as_object() else {
        return Err(record_err(
            path,
            format!("item {index}"),
            "(item)",
            format!("expected an object, found {}", describe(v)),
        ));
    };
    let id = match obj.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            return Err(record_err(
                path,
                format!("item {index}"),
                "id",
                format!("expected a string or a number, found {}", describe(other)),
            ))
        }
    };
    let record = || match &id {
        Some(id) => format!("item {index} (id {:?})", super::Preview(id)),
        None => format!("item {index}"),
    };
    let answer = string_field(path, &record, "answer", obj.get("answer").cloned())?
        .ok_or_else(|| record_err(path, record(), "answer", "missing".into()))?;
    let citations = match obj.get("citations") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => {
            let mut out = Vec::with_capacity(a.len());
            for (k, c) in a.iter().enumerate() {
                let n = as_integer(c).ok_or_else(|| {
                    record_err(
                        path,
                        record(),
                        &format!("citations[{k}]"),
                        format!("expected an integer, found {}", describe(c)),
                    )
                })?;
                out.push(n);
            }
            out
        }
        Some(other) => {
            return Err(record_err(
                path,
                record(),
                "citations",
                format!("expected an array of integers, found {}", describe(other)),
            ))
        }
    };
    let question = string_field(path, &record, "question", obj.get("question").cloned())?;
    Ok(SimpleRecord {
        id,
        question,
        item: SimpleItem { answer, citations },
    })
}

/// A gold record as read: only the fields the metrics use; serde skips the
/// others (`context`, `type`, `level`) without building them.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct RawGold {
    #[serde(rename = "_id")]
    id: Option<Value>,
    answer: Option<Value>,
    question: Option<Value>,
    supporting_facts: Option<Value>,
}

/// One gold record from the start of `bytes`, read by hand: the fields
/// the metrics use are parsed by serde_json from their own bytes, every
/// other value is skimmed (see [`super::skim`]) instead of deserialized.
/// None when anything is unusual (a key with an escape, a repeated field,
/// anything the skimmer refuses): the caller then deserializes the record
/// with serde_json, which gives the same record or the error.
fn gold_element(bytes: &[u8]) -> Option<(RawGold, usize)> {
    use super::skim::{key, skip_value, skip_ws};
    let mut raw = RawGold {
        id: None,
        answer: None,
        question: None,
        supporting_facts: None,
    };
    let mut seen = [false; 4];
    let mut i = skip_ws(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(bytes, i + 1);
    if bytes.get(i) == Some(&b'}') {
        return Some((raw, i + 1));
    }
    loop {
        let (key, start) = key(bytes, i)?;
        let key = &bytes[key];
        if key.contains(&b'\\') {
            return None;
        }
        let end = skip_value(bytes, start)?;
        let field = match key {
            b"_id" => Some(0),
            b"answer" => Some(1),
            b"question" => Some(2),
            b"supporting_facts" => Some(3),
            _ => None,
        };
        if let Some(k) = field {
            if std::mem::replace(&mut seen[k], true) {
                return None;
            }
            let value: Option<Value> = serde_json::from_slice(&bytes[start..end]).ok()?;
            match k {
                0 => raw.id = value,
                1 => raw.answer = value,
                2 => raw.question = value,
                _ => raw.supporting_facts = value,
            }
        }
        i = skip_ws(bytes, end);
        match bytes.get(i)? {
            b',' => i = skip_ws(bytes, i + 1),
            b'}' => return Some((raw, i + 1)),
            _ => return None,
        }
    }
}

/// Reads supporting facts `[[title, sent_id], ...]`. On error: the index
/// of the bad fact (None: the list itself) and what is wrong, so callers
/// build the record and field names only when they are needed.
fn supporting_facts(v: &Value) -> Result<Vec<SupportingFact>, (Option<usize>, String)> {
    let Some(list) = v.as_array() else {
        return Err((
            None,
            format!(
                "expected an array of [title, sent_id] pairs, found {}",
                describe(v)
            ),
        ));
    };
    let mut out = Vec::with_capacity(list.len());
    for (k, fact) in list.iter().enumerate() {
        let pair = fact.as_array().filter(|a| a.len() == 2);
        match pair.and_then(|a| Some((a[0].as_str()?.to_string(), as_integer(&a[1])?))) {
            Some(p) => out.push(p),
            None => {
                return Err((
                    Some(k),
                    format!("expected [string, integer], found {}", describe(fact)),
                ))
            }
        }
    }
    Ok(out)
}

/// A [`supporting_facts`] error as a [`CorpusError`] naming the record and
/// the field (`field[k]` for a bad fact).
fn facts_error(
    path: &Path,
    record: String,
    field: &str,
    (k, message): (Option<usize>, String),
) -> CorpusError {
    let field = match k {
        Some(k) => format!("{field}[{k}]"),
        None => field.to_string(),
    };
    record_err(path, record, &field, message)
}

/// Gold files past twice this size are parsed in parallel pieces.
const GOLD_PIECE_BYTES: usize = 1 << 20;

/// Parses an official gold file (the HotpotQA JSON) from its bytes.
pub(crate) fn official_gold(
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<OfficialGoldRecord>, CorpusError> {
    let bytes = super::strict_json::strip_bom_bytes(bytes);
    // Large files in parallel pieces; the whole-file parse when that
    // declines (small input, or anything off: it then names the error).
    let raw: Vec<RawGold> = match super::pieces::parse_array_with(bytes, GOLD_PIECE_BYTES, &|b| {
        gold_element(b).or_else(|| super::pieces::serde_element(b))
    }) {
        Some(raw) => raw,
        None => serde_json::from_slice(bytes).map_err(|e| json_error(path, &e))?,
    };
    let mut out = Vec::with_capacity(raw.len());
    for (index, r) in raw.into_iter().enumerate() {
        let id = match r.id {
            Some(Value::String(s)) => s,
            Some(Value::Number(n)) => n.to_string(),
            Some(other) => {
                return Err(record_err(
                    path,
                    format!("item {index}"),
                    "_id",
                    format!("expected a string, found {}", describe(&other)),
                ))
            }
            None => {
                return Err(record_err(
                    path,
                    format!("item {index}"),
                    "_id",
                    "missing".into(),
                ))
            }
        };
        // The record's name is made only for an error.
        let record = || format!("item {index} (_id {:?})", super::Preview(&id));
        let answer = string_field(path, &record, "answer", r.answer)?
            .ok_or_else(|| record_err(path, record(), "answer", "missing".into()))?;
        let facts = match &r.supporting_facts {
            Some(v) => supporting_facts(v)
                .map_err(|e| facts_error(path, record(), "supporting_facts", e))?,
            None => {
                return Err(record_err(
                    path,
                    record(),
                    "supporting_facts",
                    "missing".into(),
                ))
            }
        };
        let question = string_field(path, &record, "question", r.question)?;
        out.push(OfficialGoldRecord {
            gold: OfficialGold {
                id,
                answer,
                supporting_facts: facts,
            },
            question,
        });
    }
    Ok(out)
}

/// Reads an official prediction file (already parsed as JSON).
pub(crate) fn official_predictions(
    path: &Path,
    doc: &Value,
) -> Result<OfficialPredictions, CorpusError> {
    let obj = doc.as_object().ok_or_else(|| {
        record_err(
            path,
            "(file)".into(),
            "(top level)",
            "expected an object {\"answer\": {id: str}, \"sp\": {id: [[title, sent_id]]}}".into(),
        )
    })?;
    let section = |name: &str| -> Result<&serde_json::Map<String, Value>, CorpusError> {
        match obj.get(name) {
            Some(Value::Object(m)) => Ok(m),
            Some(other) => Err(record_err(
                path,
                "(file)".into(),
                name,
                format!("expected an object keyed by _id, found {}", describe(other)),
            )),
            None => Err(record_err(path, "(file)".into(), name, "missing".into())),
        }
    };
    let mut preds = OfficialPredictions::default();
    for (id, v) in section("answer")? {
        match v {
            Value::String(s) => {
                preds.answer.insert(id.clone(), s.clone());
            }
            other => {
                return Err(record_err(
                    path,
                    format!("answer for _id {:?}", super::Preview(&id)),
                    &format!("answer.{id}"),
                    format!("expected a string, found {}", describe(other)),
                ))
            }
        }
    }
    for (id, v) in section("sp")? {
        let facts = supporting_facts(v).map_err(|e| {
            facts_error(
                path,
                format!("sp for _id {:?}", super::Preview(&id)),
                &format!("sp.{}", super::Preview(&id)),
                e,
            )
        })?;
        preds.sp.insert(id.clone(), facts);
    }
    Ok(preds)
}

/// Official predictions read straight from the file's bytes into their
/// maps, without a JSON tree: the fast path of [`official_predictions`].
/// `None` when anything is off (not an object with "answer" and "sp", a
/// wrong type, a repeated key, invalid JSON): read the file through
/// [`super::strict_json::parse_slice`] and [`official_predictions`], which
/// name the error. When it returns predictions, they are those
/// [`official_predictions`] reads from the strict tree.
pub(crate) fn official_predictions_typed(bytes: &[u8]) -> Option<OfficialPredictions> {
    let mut de = serde_json::Deserializer::from_slice(super::strict_json::strip_bom_bytes(bytes));
    let preds = typed::Predictions.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(preds)
}

/// The seeds of [`official_predictions_typed`]: each refuses what the tree
/// path would refuse (its caller then takes that path for the message).
mod typed {
    use super::{OfficialPredictions, SupportingFact};
    use crate::corpus::strict_json::StrictValue;
    use serde::de::{
        DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor,
    };
    use std::collections::{HashMap, HashSet};
    use std::fmt;
    use std::marker::PhantomData;

    /// The top-level object: "answer" and "sp" read, other keys checked
    /// for repeated keys and skipped.
    pub(super) struct Predictions;

    impl<'de> DeserializeSeed<'de> for Predictions {
        type Value = OfficialPredictions;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for Predictions {
        type Value = OfficialPredictions;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object with \"answer\" and \"sp\"")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut seen = HashSet::new();
            let (mut answer, mut sp) = (None, None);
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key.clone()) {
                    return Err(A::Error::custom("repeated key"));
                }
                match key.as_str() {
                    "answer" => answer = Some(map.next_value_seed(ById(PhantomData::<String>))?),
                    "sp" => sp = Some(map.next_value_seed(ById(Facts))?),
                    _ => {
                        map.next_value_seed(StrictValue)?;
                    }
                }
            }
            match (answer, sp) {
                (Some(answer), Some(sp)) => Ok(OfficialPredictions { answer, sp }),
                _ => Err(A::Error::custom("no \"answer\" or no \"sp\"")),
            }
        }
    }

    /// `{id: value}`, each value read by the seed `S`, a repeated id
    /// refused.
    struct ById<S>(S);

    impl<'de, S: DeserializeSeed<'de> + Copy> DeserializeSeed<'de> for ById<S> {
        type Value = HashMap<String, S::Value>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de, S: DeserializeSeed<'de> + Copy> Visitor<'de> for ById<S> {
        type Value = HashMap<String, S::Value>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object keyed by _id")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = HashMap::new();
            while let Some(id) = map.next_key::<String>()? {
                let value = map.next_value_seed(self.0)?;
                if out.insert(id, value).is_some() {
                    return Err(A::Error::custom("repeated id"));
                }
            }
            Ok(out)
        }
    }

    /// `[[title, sent_id], ...]`.
    #[derive(Clone, Copy)]
    struct Facts;

    impl<'de> DeserializeSeed<'de> for Facts {
        type Value = Vec<SupportingFact>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(self)
        }
    }

    impl<'de> Visitor<'de> for Facts {
        type Value = Vec<SupportingFact>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of [title, sent_id]")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(fact) = seq.next_element_seed(Fact)? {
                out.push(fact);
            }
            Ok(out)
        }
    }

    /// `[title, sent_id]`: exactly two items, a string and an integer.
    struct Fact;

    impl<'de> DeserializeSeed<'de> for Fact {
        type Value = SupportingFact;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(self)
        }
    }

    impl<'de> Visitor<'de> for Fact {
        type Value = SupportingFact;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("[title, sent_id]")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let title: String = seq
                .next_element()?
                .ok_or_else(|| A::Error::custom("no title"))?;
            let sent = seq
                .next_element_seed(Integer)?
                .ok_or_else(|| A::Error::custom("no sentence id"))?;
            if seq.next_element::<IgnoredAny>()?.is_some() {
                return Err(A::Error::custom("more than two items"));
            }
            Ok((title, sent))
        }
    }

    /// A sentence id: the integers `as_integer` accepts from a tree (an
    /// i64, or a float with no fraction below 9e15 in magnitude).
    struct Integer;

    impl<'de> DeserializeSeed<'de> for Integer {
        type Value = i64;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl Visitor<'_> for Integer {
        type Value = i64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an integer")
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<i64, E> {
            Ok(v)
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<i64, E> {
            match i64::try_from(v) {
                Ok(v) => Ok(v),
                Err(_) => self.visit_f64(v as f64),
            }
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<i64, E> {
            if v.fract() == 0.0 && v.abs() < 9.0e15 {
                Ok(v as i64)
            } else {
                Err(E::custom("not an integer"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` gold items from `first`, with a context of `paragraphs`
    /// paragraphs holding strings that look like item boundaries.
    fn gold_items(first: usize, n: usize, paragraphs: usize) -> Vec<String> {
        (first..first + n)
            .map(|i| {
                let context: Vec<String> = (0..paragraphs)
                    .map(|p| format!(r#"["Title {p}", ["A sentence }}, {{ of {i}.", "Another, {{\"x\": 1}}, one."]]"#))
                    .collect();
                format!(
                    r#"{{"_id": "id{i}", "answer": "answer \"{i}\"", "question": "q{i}?", "supporting_facts": [["Title 1", {}], ["Title 2", 0]], "context": [{}], "type": "bridge"}}"#,
                    i % 3,
                    context.join(", ")
                )
            })
            .collect()
    }

    /// The typed reader gives predictions exactly when the strict tree
    /// path does, and the same ones.
    #[test]
    fn typed_predictions_equal_the_tree_path() {
        let docs = [
            r#"{"answer": {"a": "x", "b": "caf\u00e9 \"y\""}, "sp": {"a": [["T", 0], ["U", 3]], "b": []}}"#,
            "\u{feff}{\"sp\": {}, \"answer\": {}}",
            r#"{"answer": {"a": "x"}, "sp": {"a": [["T", 1.0], ["T", 1e2], ["T", -3], ["T", -0]]}, "meta": {"k": [1, {"z": null}]}}"#,
            r#"{"answer": {"a": "x"}, "sp": {}, "meta": {"k": 1, "k": 2}}"#,
            r#"{"answer": {"a": "x"}, "answer": {"b": "y"}, "sp": {}}"#,
            r#"{"answer": {"a": "x"}, "sp": {}, "sp": {}}"#,
            r#"{"answer": {"a": "x", "a": "y"}, "sp": {}}"#,
            r#"{"answer": {"a": "x"}, "sp": {"a": [], "a": []}}"#,
            r#"{"answer": {"a": 1}, "sp": {}}"#,
            r#"{"answer": {"a": null}, "sp": {}}"#,
            r#"{"answer": [], "sp": {}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", 1, 2]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T"]]}}"#,
            r#"{"answer": {}, "sp": {"a": [[1, 1]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", 1.5]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", "1"]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", 18446744073709551615]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", 9007199254740993]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", 9.5e15]]}}"#,
            r#"{"answer": {}, "sp": {"a": [["T", 8.5e15]]}}"#,
            r#"{"answer": {}, "sp": {"a": {"T": 1}}}"#,
            r#"{"answer": {}, "sp": {"a": [{"T": 1}]}}"#,
            r#"{"answer": {}}"#,
            r#"{"sp": {}}"#,
            r#"{"answer": {}, "sp": {}} x"#,
            r#"{"answer": {}, "sp": {}"#,
            r#"[{"answer": {}, "sp": {}}]"#,
            "{}",
            "",
        ];
        let path = Path::new("p.json");
        let mut typed_some = 0;
        for doc in docs {
            let typed = official_predictions_typed(doc.as_bytes());
            let tree = super::super::strict_json::parse_slice(doc.as_bytes())
                .ok()
                .filter(is_official_predictions)
                .and_then(|v| official_predictions(path, &v).ok());
            assert_eq!(typed.is_some(), tree.is_some(), "{doc}");
            if let (Some(t), Some(r)) = (typed, tree) {
                assert_eq!((t.answer, t.sp), (r.answer, r.sp), "{doc}");
                typed_some += 1;
            }
        }
        assert_eq!(typed_some, 5);
    }

    /// The hand reader gives the record serde_json gives, or leaves it to
    /// serde_json: on written edge cases and on random mutations.
    #[test]
    fn gold_records_read_by_hand_equal_serde_json() {
        let serde = |b: &[u8]| super::super::pieces::serde_element::<RawGold>(b);
        let cases = [
            r#"{"_id": "a", "answer": "x", "supporting_facts": [["T", 0]], "context": [["T", ["s1", "s2"]]]}"#,
            r#"{}"#,
            r#"  { "_id" : 7 , "answer" : null , "question" : "q\"?" } "#,
            r#"{"_id": "a", "_id": "b"}"#,
            r#"{"context": 1, "context": 2, "_id": "a"}"#,
            r#"{"\u005fid": "a"}"#,
            r#"{"_id": "a",}"#,
            r#"{"_id": "a" "answer": "b"}"#,
            r#"{"_id": 01}"#,
            r#"{"_id": [1, 2], "answer": {"k": [true]}}"#,
            r#"["a", "x", "q", []]"#,
            r#"{"level": "hard", "type": "bridge", "supporting_facts": []}"#,
        ];
        let mut by_hand = 0;
        for case in cases {
            let ours = gold_element(case.as_bytes());
            if let Some(ours) = &ours {
                assert_eq!(Some(ours), serde(case.as_bytes()).as_ref(), "{case}");
                by_hand += 1;
            }
        }
        assert_eq!(by_hand, 6);
        let base = gold_items(0, 1, 3).remove(0);
        let alphabet = b"{}[]\",:\\ 0123456789.-etrufalsn_idquo";
        let mut next = crate::test_rng::seeded(0x2545_f491_4f6c_dd1d);
        let (mut same, mut left) = (0, 0);
        for _ in 0..20_000 {
            let mut doc = base.clone().into_bytes();
            for _ in 0..1 + next() % 2 {
                let at = (next() % doc.len() as u64) as usize;
                let byte = alphabet[(next() % alphabet.len() as u64) as usize];
                if next().is_multiple_of(2) {
                    doc[at] = byte;
                } else {
                    doc.insert(at, byte);
                }
            }
            doc.push(b',');
            match gold_element(&doc) {
                Some(ours) => {
                    assert_eq!(Some(ours), serde(&doc), "{}", String::from_utf8_lossy(&doc));
                    same += 1;
                }
                None => left += 1,
            }
        }
        assert!(same > 1000 && left > 1000, "{same} {left}");
    }

    fn summary(records: &[OfficialGoldRecord]) -> Vec<String> {
        records.iter().map(|r| format!("{r:?}")).collect()
    }

    #[test]
    fn a_large_gold_file_parsed_in_pieces_equals_its_halves_parsed_whole() {
        // Each half stays under twice GOLD_PIECE_BYTES (parsed whole); the
        // whole file is over it (parsed in pieces when threads allow).
        let items = gold_items(0, 1200, 30);
        let (a, b) = items.split_at(600);
        let doc = |items: &[String]| format!("[\n{}\n]\n", items.join(",\n"));
        let (whole, first, second) = (doc(&items), doc(a), doc(b));
        assert!(first.len() < 2 * GOLD_PIECE_BYTES && whole.len() > 2 * GOLD_PIECE_BYTES);
        let path = Path::new("gold.json");
        let mut expected = official_gold(path, first.as_bytes()).unwrap();
        expected.extend(official_gold(path, second.as_bytes()).unwrap());
        let got = official_gold(path, whole.as_bytes()).unwrap();
        assert_eq!(summary(&got), summary(&expected));
        assert_eq!(got.len(), 1200);
        // An error late in a large file names the same place as before.
        let bad = whole.replacen("\"id1100\", \"answer\"", "\"id1100\", \"answer\":", 1);
        let err = official_gold(path, bad.as_bytes()).unwrap_err().to_string();
        let whole_err = match serde_json::from_slice::<Vec<RawGold>>(bad.as_bytes()) {
            Ok(_) => panic!("the bad document parsed"),
            Err(e) => e,
        };
        assert!(
            err.contains(&format!("{}:{}", whole_err.line(), whole_err.column())),
            "{err} vs {whole_err}"
        );
    }
}
