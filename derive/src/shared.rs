//! The settings several jobs share, each declared once: its doc comment
//! (the flag's help), its serde and `#[setting]` attributes and its type.
//! A job's configuration names one by a field marked `#[shared]`
//! ([`crate::shared_settings`]); the field keeps its place (so the order of
//! keys and flags is the job's) and may add a doc line of its own (a note
//! for that job) and `#[shared(tag = "api")]`-style `#[setting]` options.

use proc_macro2::TokenStream as Tokens;
use quote::quote;

/// One shared setting: its type as written (paths aside: `PathBuf` and
/// `std::path::PathBuf` are the same) and its attributes.
pub(crate) struct Shared {
    /// The type, checked against the field's.
    pub(crate) ty: &'static str,
    /// Doc comment, `#[serde]` and `#[setting]` attributes.
    pub(crate) attrs: Tokens,
}

/// The shared setting of this key, if there is one.
pub(crate) fn shared(key: &str) -> Option<Shared> {
    let (ty, attrs) = match key {
        "version" => (
            "u32",
            quote! {
                /// Format version of this configuration.
                #[setting(default = Self::VERSION, skip)]
            },
        ),
        "out" => (
            "PathBuf",
            quote! {
                /// Parent folder of the run folder.
                #[setting(default = ::std::path::PathBuf::from("reports"), value_name = "DIR")]
            },
        ),
        "shard" => (
            "Option<Shard>",
            quote! {
                /// Process only the records whose id falls in shard I of N
                /// (FNV-1a of the id mod N, plus 1); join the shards' run
                /// folders with `corpus-eval merge`.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(parse, value_name = "I/N")]
            },
        ),
        "fail_under" => (
            "BTreeMap<String,f64>",
            quote! {
                /// Quality gate: exit 3, once the run folder is written, when an
                /// overall metric is below its bound (METRIC=VALUE, comma-separated,
                /// repeatable; names: the keys of the command's summary).
                #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
                #[setting(value_name = "METRIC=VALUE[,...]")]
            },
        ),
        "wordnet" => (
            "Option<PathBuf>",
            quote! {
                /// Load a WordNet dict folder (data.*, index.*, *.exc) instead of the
                /// embedded lexicon.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(value_name = "DIR")]
            },
        ),
        "match_level" => (
            "MatchLevel",
            quote! {
                /// The weakest quote verdict that counts as found.
                #[serde(rename = "match")]
                #[setting(default = crate::citations::MatchLevel::Normalized, choices)]
            },
        ),
        "fuzzy_threshold" => (
            "f64",
            quote! {
                /// Similarity (0..1) a fuzzy match needs.
                #[setting(default = crate::citations::DEFAULT_FUZZY_THRESHOLD)]
            },
        ),
        "fuzzy_search" => (
            "Option<FuzzySearch>",
            quote! {
                /// How the fuzzy search finds passages: `lossless` (every one at or
                /// above min(0.8, the threshold) found; the default) or `fast` (the
                /// word pairs' windows only).
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(choices)]
            },
        ),
        "fillers" => (
            "Option<Vec<String>>",
            quote! {
                /// Filler words quote matching ignores, standing alone as words, any
                /// case, comma-separated (default: um, uh, er, erm, ah, hmm, mm, mhm;
                /// `none` as a flag, `[]` in a file, for none).
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(none_empty, value_name = "A,B,...|none")]
            },
        ),
        "meaning_words" => (
            "Option<PathBuf>",
            quote! {
                /// Word lists of the `meaning` classes: a TOML file (`.json`: JSON)
                /// whose keys `negators`, `quantifiers`, `hedges`, `pronouns` and
                /// `antonyms` (true or false) replace the English lists (default:
                /// the English lists, `meaning:en.2` in the signature).
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(value_name = "FILE")]
            },
        ),
        "time_tolerance" => (
            "f64",
            quote! {
                /// Seconds a quote may stand from the time its citation gives
                /// (`(P3, 00:12:31)`, a verbatim's `time`) before it is
                /// `wrong_location`; cited lines allow no tolerance.
                #[setting(default = crate::evaluate::DEFAULT_TIME_TOLERANCE, value_name = "SECONDS")]
            },
        ),
        "paraphrase" => (
            "bool",
            quote! {
                /// Compare a quote with no close passage with every turn of its
                /// cited transcript (and runs of up to three sentences of one) by
                /// sentence embeddings: `paraphrase` at or above
                /// --paraphrase-threshold, and `nearest` ("what was said") on the
                /// record. Needs the embedding model (--model-dir).
            },
        ),
        "paraphrase_threshold" => (
            "f64",
            quote! {
                /// Cosine similarity a quote's nearest passage needs for
                /// `paraphrase` (0 to 1; calibrate it on your own labels with
                /// `corpus-eval threshold --agreement`).
                #[setting(default = crate::evaluate::DEFAULT_PARAPHRASE_THRESHOLD, value_name = "X")]
            },
        ),
        "model_dir" => (
            "Option<PathBuf>",
            quote! {
                /// Folder of the sentence-embedding model (Hugging Face layout:
                /// config.json, tokenizer.json, model.safetensors). Default:
                /// $CORPUS_EVAL_MODEL_DIR, then models/all-MiniLM-L6-v2, then the
                /// Hugging Face cache.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(value_name = "DIR")]
            },
        ),
        "speaker_pattern" => (
            "Option<String>",
            quote! {
                /// Speaker labels: a regex whose first group is the label, matched at
                /// line starts (default: a capitalized name, `:` and a space).
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(value_name = "REGEX")]
            },
        ),
        "interviewer_labels" => (
            "Option<Vec<String>>",
            quote! {
                /// Labels of interviewer turns, comma-separated, case-insensitive,
                /// added to the defaults (Interviewer, Moderator, Facilitator,
                /// Researcher, INT, IV, Q, I; a number after one is the same role:
                /// `Interviewer 2`); `none` first replaces the defaults
                /// (`none,Dana Whitfield`).
                #[serde(skip_serializing_if = "Option::is_none")]
            },
        ),
        "speaker_aliases" => (
            "Option<PathBuf>",
            quote! {
                /// Speaker aliases: a CSV file of `alias,label` rows (a quote
                /// attributed to `alias` is the transcript's `label`).
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(value_name = "FILE")]
            },
        ),
        "speaker_map" => (
            "Option<String>",
            quote! {
                /// Names of diarized speakers (whisperX `SPEAKER_00`...):
                /// `SPEAKER_00=Interviewer,SPEAKER_01=Tomas`, or a CSV file of
                /// `label,name` rows; unmapped labels stay as they are.
                #[serde(skip_serializing_if = "Option::is_none")]
                #[setting(value_name = "MAP|FILE")]
            },
        ),
        "allow_external_sources" => (
            "bool",
            quote! {
                /// Read a REFI-QDA project's text sources that lie outside the
                /// project's folder (an absolute path, `../`, a `file://` URL, a link
                /// leading out); refused by default. Never from `/proc`, `/dev` or
                /// `/sys`. Each file read outside the archive is named on stderr and in
                /// the manifest.
            },
        ),
        _ => return None,
    };
    Some(Shared { ty, attrs })
}

/// A type's text without its path prefixes or spaces
/// (`std::collections::BTreeMap<String, f64>` is `BTreeMap<String,f64>`).
pub(crate) fn plain_type(text: &str) -> String {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = String::with_capacity(compact.len());
    let mut word = String::new();
    let mut chars = compact.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
        } else {
            out.push_str(&word);
            word.clear();
            out.push(c);
        }
    }
    out.push_str(&word);
    out
}
