//! Socioscope question files: `{"qa_pairs": [...]}` or a bare array of
//! `{"id"?, "question": {"text", "type", "metric"}, "answers": [...]}`.

use super::packed::{PackedTexts, Unpacked};
use super::tape::{Kind, Tape};
use super::CorpusError;
use serde_json::Value;
use std::borrow::Cow;
use std::path::Path;

/// A quoted citation attached to an answer.
#[derive(Debug, Clone)]
pub struct Quote {
    /// The quoted text.
    pub quote: String,
    /// The FILE it claims to come from (None when absent).
    pub source: Option<String>,
    /// Who the answer says said it (`"speaker"`), when given.
    pub speaker: Option<String>,
    /// Where the answer says it stands (`"time"`: seconds or `hh:mm:ss`;
    /// `"line"`: a line or `"45-47"`), when given.
    pub place: Option<crate::text::anchors::CitedPlace>,
}

/// One answer to a question.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The answer text (null or absent reads as "").
    pub answer: String,
    /// The transcript the answer is about, when given.
    pub source: Option<String>,
    /// Its verbatim quotes.
    pub quotes: Vec<Quote>,
}

/// One question with its answers.
#[derive(Debug, Clone)]
pub struct QaPair {
    /// Position in the file.
    pub index: usize,
    /// The id, or the index as a string when the file has none.
    pub id: String,
    /// The question text.
    pub text: String,
    /// The question type as written.
    pub qtype: String,
    /// The metric as written (a JSON value, possibly a string holding JSON).
    pub metric: Value,
    /// The answers.
    pub answers: Vec<Answer>,
}

/// A loaded question file: the typed pairs and each pair's object as
/// written, which the results file reproduces with scores added. The
/// document's text and nodes are not kept: the pairs' objects are held
/// compressed (`PackedTexts`) and read again when written, and the
/// entries of a wrapping object as their text.
#[derive(Debug, Clone)]
pub struct QuestionSet {
    /// The document's shape: None for a bare array of pairs, or the
    /// entries of the object whose `qa_pairs` holds them.
    wrapper: Option<Wrapper>,
    /// The JSON text of each pair of `pairs` (all of the file's, or those
    /// kept by [`QuestionSet::retain_pairs`]).
    pair_texts: PackedTexts,
    /// The validated pairs, in file order.
    pub pairs: Vec<QaPair>,
}

/// A byte range of the document's text (texts are under 4 GiB: the tape's
/// limit).
type Range = (u32, u32);

/// The object that wraps the pairs: its entries' key and value texts, in
/// order (the `qa_pairs` value left empty), and which entry is `qa_pairs`.
#[derive(Debug, Clone)]
struct Wrapper {
    entries: Vec<(String, String)>,
    pairs_entry: usize,
}

/// The entries of the object that wraps the pairs (`{"qa_pairs": [...],
/// ...}`) as written: each key's and value's JSON text (the `qa_pairs`
/// value left empty: the pairs are [`QuestionSet::pair_texts`]), and the
/// position of `qa_pairs` among them.
#[derive(Debug, Clone)]
pub struct WrapperEntries<'a> {
    /// (key, value) JSON texts, in document order.
    pub entries: Vec<(&'a str, &'a str)>,
    /// The index in `entries` of `qa_pairs`.
    pub pairs_entry: usize,
}

impl QuestionSet {
    /// The entries of the object that wraps the pairs, or None when the
    /// document is a bare array of pairs.
    pub fn wrapper(&self) -> Option<WrapperEntries<'_>> {
        self.wrapper.as_ref().map(|w| WrapperEntries {
            entries: w
                .entries
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
            pairs_entry: w.pairs_entry,
        })
    }

    /// Pair `k`'s object (of [`QuestionSet::pairs`]) as written: its JSON
    /// text in the document. (For many pairs, [`QuestionSet::pair_texts`]
    /// reads them back together.)
    pub fn pair_text(&self, k: usize) -> Option<String> {
        self.pair_texts(k..k.saturating_add(1))
            .get(k)
            .map(str::to_string)
    }

    /// The objects of pairs `ks` as written, read back together.
    pub fn pair_texts(&self, ks: std::ops::Range<usize>) -> Unpacked<'_> {
        self.pair_texts.unpack(ks)
    }

    /// Pair `k`'s object as written in the document, as a value.
    pub fn pair_value(&self, k: usize) -> Option<Value> {
        super::strict_json::parse_str(&self.pair_text(k)?).ok()
    }

    /// Every pair's object as a value ([`QuestionSet::pair_value`] of each,
    /// read back in one pass rather than a block per pair).
    pub fn pair_values(&self) -> Vec<Option<Value>> {
        let texts = self.pair_texts(0..self.pairs.len());
        (0..self.pairs.len())
            .map(|k| super::strict_json::parse_str(texts.get(k)?).ok())
            .collect()
    }

    /// Drops the typed pairs (the larger part of a loaded set), keeping
    /// their texts as written and the document's shape; returns each pair's
    /// id. [`QuestionSet::typed_pairs`] types a range of them again.
    pub(crate) fn drop_typed(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pairs)
            .into_iter()
            .map(|p| p.id)
            .collect()
    }

    /// Pairs `ks` typed again from their texts as written, with their
    /// positions and `ids` (the ids [`QuestionSet::drop_typed`] returned):
    /// the pairs the loader made of the whole file. `name` stands for the
    /// file in errors (there are none for a set that loaded).
    pub(crate) fn typed_pairs(
        &self,
        name: &Path,
        ks: std::ops::Range<usize>,
        ids: &[String],
    ) -> Result<Vec<QaPair>, CorpusError> {
        let texts = self.pair_texts(ks.clone());
        let mut doc = String::from("[");
        for k in ks.clone() {
            if k > ks.start {
                doc.push(',');
            }
            doc.push_str(texts.get(k).unwrap_or("null"));
        }
        doc.push(']');
        let mut pairs = parse_questions(name, &doc)?.pairs;
        for (pair, k) in pairs.iter_mut().zip(ks) {
            pair.index = k;
            if let Some(id) = ids.get(k) {
                pair.id.clone_from(id);
            }
        }
        Ok(pairs)
    }

    /// Keeps the pairs for which `keep` is true (and their objects in the
    /// document the results reproduce), in file order.
    pub fn retain_pairs(&mut self, mut keep: impl FnMut(&QaPair) -> bool) {
        let flags: Vec<bool> = self.pairs.iter().map(&mut keep).collect();
        self.pair_texts.retain(&flags);
        let mut k = flags.iter();
        self.pairs.retain(|_| k.next().copied().unwrap_or(false));
    }
}

/// A scalar node as text (strings, numbers, booleans), as the previous
/// loader read ids, answers and sources.
fn as_text(tape: &Tape, text: &str, k: usize) -> Option<String> {
    match tape.kind(k) {
        Kind::Str | Kind::StrEscaped => tape.str_value(text, k).map(Cow::into_owned),
        Kind::Number => match tape.value(text, k) {
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        },
        Kind::Bool => Some(tape.raw(text, k).to_string()),
        _ => None,
    }
}

/// A verbatim's cited place: its `time` or its `line`, as
/// [`CitedPlace::from_fields`](crate::text::anchors::CitedPlace::from_fields)
/// reads them; an error names the field and what is wrong.
fn cited_place(
    tape: &Tape,
    text: &str,
    quote: usize,
) -> Result<Option<crate::text::anchors::CitedPlace>, (&'static str, String)> {
    // A field given as null is a field not given; an array or an object
    // reads as "" (and fails the parse, named).
    let given = |name: &str| {
        tape.field(text, quote, name)
            .filter(|&k| tape.kind(k) != Kind::Null)
            .map(|k| as_text(tape, text, k).unwrap_or_default())
    };
    let (time, line) = (given("time"), given("line"));
    crate::text::anchors::CitedPlace::from_fields(time.as_deref(), line.as_deref())
}

/// Parses a question file's text; `path` is used in error messages.
pub(crate) fn parse_questions(path: &Path, text: &str) -> Result<QuestionSet, CorpusError> {
    parse_questions_with(path, text.to_string(), |_| ()).map(|(set, ())| set)
}

/// [`parse_questions`] taking the text, running `alongside` over the file's text on
/// another thread while it is scanned (e.g. its SHA-256).
pub(crate) fn parse_questions_with<R: Send>(
    path: &Path,
    text: String,
    alongside: impl FnOnce(&[u8]) -> R + Send,
) -> Result<(QuestionSet, R), CorpusError> {
    let (text, tape, extra) = super::parse_tape_with(path, text, alongside)?;
    build_questions(path, text, tape).map(|set| (set, extra))
}

/// The typed pairs of a question document's tape.
fn build_questions(path: &Path, text: String, tape: Tape) -> Result<QuestionSet, CorpusError> {
    let err = |record: String, field: &str, message: &str| CorpusError::Record {
        path: path.to_path_buf(),
        record,
        field: field.to_string(),
        message: message.to_string(),
    };
    let shape = "expected an array of qa pairs or an object with a \"qa_pairs\" array";
    let root = tape.root();
    let (wrapper, items) = match tape.kind(root) {
        Kind::Array => (None, root),
        Kind::Object => match tape.field(&text, root, "qa_pairs") {
            Some(a) if tape.kind(a) == Kind::Array => (Some(root), a),
            _ => return Err(err("top level".into(), "qa_pairs", shape)),
        },
        _ => return Err(err("top level".into(), "(root)", shape)),
    };
    let pair_nodes: Vec<usize> = tape.children(items).collect();
    let t = &tape;
    let text_ref = text.as_str();
    let is_null = |k: Option<usize>| k.is_none_or(|k| t.kind(k) == Kind::Null);
    // One pair's typed record (pairs are independent: built in parallel).
    let build_pair = |index: usize, item: usize| -> Result<QaPair, CorpusError> {
        if t.kind(item) != Kind::Object {
            return Err(err(
                format!("qa pair {index}"),
                "(pair)",
                "expected an object",
            ));
        }
        let field = |k: usize, name: &str| t.field(text_ref, k, name);
        let id = match field(item, "id") {
            v if is_null(v) => index.to_string(),
            Some(v) => as_text(t, text_ref, v).ok_or_else(|| {
                err(
                    format!("qa pair {index}"),
                    "id",
                    "expected a string or a number",
                )
            })?,
            None => index.to_string(),
        };
        let record = format!("qa pair {index} (id {:?})", super::Preview(&id));
        let question = match field(item, "question") {
            Some(q) if t.kind(q) == Kind::Object => q,
            Some(_) => return Err(err(record, "question", "expected an object")),
            None => return Err(err(record, "question", "missing")),
        };
        let required = |name: &str| -> Result<String, CorpusError> {
            match field(question, name) {
                Some(v) if matches!(t.kind(v), Kind::Str | Kind::StrEscaped) => {
                    let s = t.str_value(text_ref, v).unwrap_or_default();
                    if s.trim().is_empty() {
                        Err(err(record.clone(), &format!("question.{name}"), "is empty"))
                    } else {
                        Ok(s.into_owned())
                    }
                }
                v if is_null(v) => Err(err(record.clone(), &format!("question.{name}"), "missing")),
                _ => Err(err(
                    record.clone(),
                    &format!("question.{name}"),
                    "expected a string",
                )),
            }
        };
        let qtext = required("text")?;
        let qtype = required("type")?;
        let metric = match field(question, "metric") {
            v if is_null(v) => return Err(err(record, "question.metric", "missing")),
            Some(m) => {
                let value = t.value(text_ref, m);
                if value.as_str().is_some_and(|s| s.trim().is_empty()) {
                    return Err(err(record, "question.metric", "is empty"));
                }
                value
            }
            None => return Err(err(record, "question.metric", "missing")),
        };
        let answers_node = match field(item, "answers") {
            v if is_null(v) => None,
            Some(a) if t.kind(a) == Kind::Array => Some(a),
            Some(_) => return Err(err(record, "answers", "expected an array")),
            None => None,
        };
        // At their final sizes: a vector grown by pushes holds room for
        // four (72 bytes per unused answer or quote slot: ~8 MB per
        // 20,000 pairs).
        let mut answers = Vec::with_capacity(answers_node.map_or(0, |a| t.children(a).count()));
        for (ai, a) in answers_node
            .into_iter()
            .flat_map(|a| t.children(a))
            .enumerate()
        {
            if t.kind(a) != Kind::Object {
                return Err(err(record, &format!("answers[{ai}]"), "expected an object"));
            }
            let optional_text = |name: &str, what: &str| -> Result<Option<String>, CorpusError> {
                match field(a, name) {
                    v if is_null(v) => Ok(None),
                    Some(v) => as_text(t, text_ref, v)
                        .map(Some)
                        .ok_or_else(|| err(record.clone(), &format!("answers[{ai}].{name}"), what)),
                    None => Ok(None),
                }
            };
            let answer = optional_text("answer", "expected a string")?.unwrap_or_default();
            let source = optional_text("source", "expected a string")?;
            let quotes_node = match field(a, "verbatims") {
                v if is_null(v) => None,
                Some(v) if t.kind(v) == Kind::Array => Some(v),
                Some(_) => {
                    return Err(err(
                        record,
                        &format!("answers[{ai}].verbatims"),
                        "expected an array",
                    ))
                }
                None => None,
            };
            let mut quotes = Vec::with_capacity(quotes_node.map_or(0, |v| t.children(v).count()));
            for (qi, q) in quotes_node
                .into_iter()
                .flat_map(|v| t.children(v))
                .enumerate()
            {
                let at = format!("answers[{ai}].verbatims[{qi}]");
                if t.kind(q) != Kind::Object {
                    return Err(err(
                        record,
                        &at,
                        "expected an object {\"quote\", \"source\"}",
                    ));
                }
                let quote = match field(q, "quote") {
                    Some(v) if matches!(t.kind(v), Kind::Str | Kind::StrEscaped) => {
                        t.str_value(text_ref, v).unwrap_or_default().into_owned()
                    }
                    Some(_) => {
                        return Err(err(record, &format!("{at}.quote"), "expected a string"))
                    }
                    None => return Err(err(record, &format!("{at}.quote"), "missing")),
                };
                let source = match field(q, "source") {
                    v if is_null(v) => None,
                    Some(v) => Some(as_text(t, text_ref, v).ok_or_else(|| {
                        err(record.clone(), &format!("{at}.source"), "expected a string")
                    })?),
                    None => None,
                };
                let speaker = match field(q, "speaker") {
                    v if is_null(v) => None,
                    Some(v) if matches!(t.kind(v), Kind::Str | Kind::StrEscaped) => {
                        Some(t.str_value(text_ref, v).unwrap_or_default().into_owned())
                    }
                    _ => {
                        return Err(err(
                            record.clone(),
                            &format!("{at}.speaker"),
                            "expected a string",
                        ))
                    }
                };
                let place = cited_place(t, text_ref, q)
                    .map_err(|(name, what)| err(record.clone(), &format!("{at}.{name}"), &what))?;
                quotes.push(Quote {
                    quote,
                    source,
                    speaker,
                    place,
                });
            }
            answers.push(Answer {
                answer,
                source,
                quotes,
            });
        }
        Ok(QaPair {
            index,
            id,
            text: qtext,
            qtype,
            metric,
            answers,
        })
    };
    let built: Vec<Result<QaPair, CorpusError>> = {
        use rayon::prelude::*;
        pair_nodes
            .par_iter()
            .enumerate()
            .map(|(index, &item)| build_pair(index, item))
            .collect()
    };
    // The first error in file order is the one reported.
    let pairs = built
        .into_iter()
        .collect::<Result<Vec<QaPair>, CorpusError>>()?;
    // The document's text and nodes are dropped here: what the results
    // file needs of them is the text of each pair and of the wrapper's
    // other entries.
    let range = |k: usize| {
        let n = tape.node(k);
        (n.start, n.end)
    };
    let slice = |(start, end): Range| text.get(start as usize..end as usize).unwrap_or("");
    let wrapper = wrapper.map(|w| {
        let ranges: Vec<(Range, Range)> = tape
            .entries(w)
            .map(|(key, value)| (range(key), range(value)))
            .collect();
        let pairs_entry = ranges
            .iter()
            .position(|&(_, value)| value == range(items))
            .unwrap_or(ranges.len());
        debug_assert!(
            pairs_entry < ranges.len(),
            "qa_pairs is an entry of its object"
        );
        let entries = ranges
            .iter()
            .enumerate()
            .map(|(i, &(key, value))| {
                let value = if i == pairs_entry { "" } else { slice(value) };
                (slice(key).to_string(), value.to_string())
            })
            .collect();
        Wrapper {
            entries,
            pairs_entry,
        }
    });
    let texts: Vec<&str> = pair_nodes.iter().map(|&k| slice(range(k))).collect();
    let pair_texts = PackedTexts::pack(&texts);
    Ok(QuestionSet {
        wrapper,
        pair_texts,
        pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<QuestionSet, CorpusError> {
        parse_questions(Path::new("q.json"), s)
    }

    #[test]
    fn pairs_typed_again_from_their_texts_equal_the_loaded_ones() {
        // Ids absent (the position), numeric and repeated as text; a
        // wrapper with other entries.
        let pair = |id: &str, q: &str| {
            format!(
                r#"{{{id}"question":{{"text":"{q}","type":"Yes/No","metric":"yes"}},"answers":[{{"answer":"Yes","verbatims":[{{"quote":"a \"b\" c","source":"t.txt","speaker":"Ann"}}]}}]}}"#
            )
        };
        let pairs: Vec<String> = (0..9)
            .map(|k| match k % 3 {
                0 => pair("", &format!("Q{k}")),
                1 => pair(&format!(r#""id":{k}0,"#), &format!("Q{k}")),
                _ => pair(r#""id":"2","#, "Q é"),
            })
            .collect();
        let text = format!(r#"{{"meta":1,"qa_pairs":[{}]}}"#, pairs.join(","));
        let mut set = parse(&text).unwrap();
        let loaded: Vec<String> = set.pairs.iter().map(|p| format!("{p:?}")).collect();
        let ids = set.drop_typed();
        assert!(set.pairs.is_empty());
        assert_eq!(ids.len(), 9);
        for ks in [0..9, 0..1, 3..7, 8..9, 4..4] {
            let typed = set
                .typed_pairs(Path::new("q.json"), ks.clone(), &ids)
                .unwrap();
            let again: Vec<String> = typed.iter().map(|p| format!("{p:?}")).collect();
            assert_eq!(again, loaded[ks.clone()], "{ks:?}");
        }
        // The document's shape and texts are kept.
        assert!(set.wrapper().is_some());
        assert_eq!(set.pair_text(4).as_deref(), Some(pairs[4].as_str()));
    }

    #[test]
    fn bare_array_and_wrapped() {
        let pair = r#"{"question":{"text":"Q?","type":"Yes/No","metric":"yes"},"answers":[{"answer":"Yes","source":"a.csv","verbatims":[{"quote":"x","source":"a.csv"}]}]}"#;
        let set = parse(&format!("[{pair}]")).unwrap();
        assert_eq!(set.pairs[0].id, "0");
        assert_eq!(set.pairs[0].answers[0].quotes[0].quote, "x");
        let set = parse(&format!(r#"{{"qa_pairs":[{pair},{pair}]}}"#)).unwrap();
        assert_eq!(set.pairs[1].id, "1");
        // Each pair's object as written, one at a time or all at once.
        let values = set.pair_values();
        assert_eq!(values.len(), 2);
        for (k, v) in values.iter().enumerate() {
            assert_eq!(v.as_ref(), set.pair_value(k).as_ref());
            assert_eq!(v.as_ref().unwrap()["answers"][0]["answer"], "Yes");
        }
    }

    #[test]
    fn missing_fields_name_index_and_id() {
        let e = parse(r#"[{"id":"q7","question":{"text":"Q","metric":"yes"}}]"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("qa pair 0 (id \"q7\")") && e.contains("question.type"),
            "{e}"
        );
        let e = parse(r#"[{"question":{"type":"Yes/No","metric":"yes"}}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("question.text"), "{e}");
        let e = parse(r#"[{"question":{"type":"Yes/No","text":"Q"}}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("question.metric"), "{e}");
    }

    #[test]
    fn of_several_bad_pairs_the_first_in_the_file_is_reported() {
        // Pairs are built in parallel: whichever thread meets an error
        // first, the one reported is the file's first.
        let good = r#"{"question":{"type":"Yes/No","text":"Q","metric":"yes"},"answers":[{"answer":"Yes"}]}"#;
        let pairs: Vec<String> = (0..3000)
            .map(|i| match i {
                1234 => r#"{"id":"first","question":{"text":"Q","metric":"yes"}}"#.to_string(),
                2999 | 2000 => r#"{"id":"later","question":"not an object"}"#.to_string(),
                _ => good.to_string(),
            })
            .collect();
        let doc = format!("[{}]", pairs.join(","));
        for _ in 0..5 {
            let e = parse(&doc).unwrap_err().to_string();
            assert!(e.contains("qa pair 1234 (id \"first\")"), "{e}");
        }
        let ok = format!("[{}]", vec![good; 3000].join(","));
        let set = parse(&ok).unwrap();
        assert_eq!(set.pairs.len(), 3000);
        assert!(set
            .pairs
            .iter()
            .enumerate()
            .all(|(i, p)| p.index == i && p.id == i.to_string()));
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let e = parse("[\n  {\"question\": oops}\n]")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("q.json:2:"), "{e}");
    }
}
