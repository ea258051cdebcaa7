//! Each setting of a job is declared once: a field of its configuration,
//! whose doc comment, type and key `#[derive(Settings)]` lists as a
//! [`Setting`]. The command line builds its flags from that list and lays
//! the flags given over the configuration file's (or the default)
//! configuration with [`overlay`]; nothing here knows about clap.

use super::{ConfigError, JobConfig};
use serde_json::Value;

pub(crate) use corpus_eval_derive::shared_settings;
pub use corpus_eval_derive::Settings;

/// Checks a flag's value (or one item of a list): the error says why it
/// is refused.
pub type Check = fn(&str) -> Result<(), String>;

/// How a flag's value is read.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A flag without a value: given, the setting is `true`.
    Switch,
    /// A whole number, 0 or more.
    UInt,
    /// A whole number.
    Int,
    /// A finite number.
    Float,
    /// Text (or a path).
    Text,
    /// Comma-separated values (empty ones dropped), the flag repeatable.
    List {
        /// `none` alone is the empty list.
        none_empty: bool,
        /// An item given twice is kept once.
        unique: bool,
        /// Checks each item (an error says why it is refused).
        check: Option<Check>,
    },
    /// One value per flag, repeatable (values may hold commas).
    Repeat,
    /// `NAME=NUMBER` pairs, comma-separated, the flag repeatable: added to
    /// the table the configuration holds (`--fail-under`).
    Bounds,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// Text checked by the setting type's parser.
    Parsed(Check),
}

/// One setting of a job's configuration, as its flag shows it.
#[derive(Debug, Clone)]
pub struct Setting {
    /// The configuration key (`fuzzy_threshold`, `match`).
    pub key: &'static str,
    /// The long flag without `--` (`fuzzy-threshold`).
    pub flag: &'static str,
    /// The field's doc comment: the flag's help.
    pub help: &'static str,
    /// The placeholder of the value in the help (default: from the kind).
    pub value_name: Option<&'static str>,
    /// How the value is read.
    pub kind: Kind,
    /// A group a command may pick alone (`rag ask` takes `api`).
    pub tag: Option<&'static str>,
}

/// A configuration that lists its settings (`#[derive(Settings)]`).
pub trait Settings {
    /// The settings with a flag, in declaration order.
    fn settings() -> Vec<Setting>;
}

/// A configuration's keys as a Python `TypedDict` named `class` (the
/// type of a Python function's keyword arguments): every key the
/// configuration takes but those of `except` (given to the function as
/// parameters of their own), each typed by its setting's kind (`Any` for a
/// key without a flag). The Python package's `_configs.pyi` is these, for
/// each job, and the test suite checks that it is.
pub fn python_typed_dict<C: JobConfig + Settings>(class: &str, except: &[&str]) -> String {
    let settings = C::settings();
    let mut out = format!(
        "class {class}(TypedDict, total=False):\n    \"\"\"The settings of `corpus-eval {}` (its `--config` keys).\"\"\"\n\n",
        C::COMMAND
    );
    for key in super::field_names::<C>() {
        if except.contains(key) {
            continue;
        }
        let ty = match settings.iter().find(|s| s.key == *key).map(|s| &s.kind) {
            None => "Any".to_string(),
            Some(Kind::Switch) => "bool".into(),
            Some(Kind::UInt | Kind::Int) => "int".into(),
            Some(Kind::Float) => "float".into(),
            Some(Kind::Text | Kind::Parsed(_)) => "str".into(),
            Some(Kind::List { .. } | Kind::Repeat) => "List[str]".into(),
            Some(Kind::Bounds) => "Dict[str, float]".into(),
            Some(Kind::Choice(names)) => format!(
                "Literal[{}]",
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        out.push_str(&format!("    {key}: {ty}\n"));
    }
    out
}

/// The names an enum setting takes (its serde names).
pub trait Choices {
    /// Every name, in the order the help lists them.
    const NAMES: &'static [&'static str];
}

impl Setting {
    /// The flag's help, as clap's derive shows a doc comment: the first
    /// paragraph without its closing period, then the default (from
    /// `defaults`, the default configuration as JSON; none for a switch);
    /// and the long help (`--help`): that, then the rest of the comment.
    pub fn help_texts(&self, defaults: &Value) -> (String, String) {
        let default = default_shown(defaults, self.key)
            .filter(|_| !matches!(self.kind, Kind::Switch))
            .map(|d| format!(" [default: {d}]"))
            .unwrap_or_default();
        let (first, rest) = self.help.split_once("\n\n").unwrap_or((self.help, ""));
        let first = match first.strip_suffix('.') {
            Some(cut) if !cut.ends_with('.') => cut,
            _ => first,
        };
        let help = format!("{first}{default}");
        let long = match rest {
            "" => help.clone(),
            rest => format!("{help}\n\n{rest}"),
        };
        (help, long)
    }
}

/// A list setting's value from the items given (each flag's values,
/// comma-split): trimmed, empty ones dropped, repeats dropped when
/// `unique`, and `none` alone the empty list when `none_empty`.
pub fn list_value<'a>(
    items: impl IntoIterator<Item = &'a str>,
    none_empty: bool,
    unique: bool,
) -> Value {
    let mut kept: Vec<&str> = Vec::new();
    for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
        if !(unique && kept.contains(&item)) {
            kept.push(item);
        }
    }
    if none_empty && matches!(kept.as_slice(), [one] if one.eq_ignore_ascii_case("none")) {
        kept.clear();
    }
    Value::Array(kept.into_iter().map(|i| Value::String(i.into())).collect())
}

/// A finite number (NaN and infinities refused).
pub fn finite(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err("not a finite number".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// One `--fail-under` value: `NAME=NUMBER` pairs, comma-separated, each
/// bound a finite number.
pub fn bounds(v: &str) -> Result<Vec<crate::gates::Gate>, String> {
    let gates = crate::gates::parse(v)?;
    match gates.iter().find(|g| !g.bound.is_finite()) {
        Some(g) => Err(format!("{}: the bound is not a finite number", g.metric)),
        None => Ok(gates),
    }
}

/// A setting's default as its help shows it (`[default: X]`), from the
/// default configuration as [`super::to_value`] gives it: text and
/// numbers as written, lists comma-separated; none for `false`, unset or
/// empty settings.
pub fn default_shown(defaults: &Value, key: &str) -> Option<String> {
    match defaults.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(true) => Some("true".into()),
        Value::Array(items) if !items.is_empty() => Some(joined(items)),
        _ => None,
    }
}

/// List items comma-separated, text as written.
fn joined(items: &[Value]) -> String {
    items
        .iter()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        .collect::<Vec<_>>()
        .join(",")
}

/// `config` with each given setting (key and value, as [`Kind`] reads
/// them) laid over it, one at a time, so a value the setting's type
/// refuses is named by its flag.
pub fn overlay<C: JobConfig + Settings>(
    mut config: C,
    given: &[(&'static str, Value)],
) -> Result<C, ConfigError> {
    if given.is_empty() {
        return Ok(config);
    }
    let Value::Object(mut fields) = super::to_value(&config) else {
        return Err(invalid("--config", "is not a table".into()));
    };
    let settings = C::settings();
    for (key, value) in given {
        let flag = settings
            .iter()
            .find(|s| s.key == *key)
            .map_or(*key, |s| s.flag);
        match (fields.get_mut(*key), value) {
            // A table's entries are added to the configuration's.
            (Some(Value::Object(table)), Value::Object(more)) => {
                table.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())))
            }
            _ => {
                fields.insert((*key).to_string(), value.clone());
            }
        }
        // Read back after each flag: a value its setting refuses is named
        // by that flag (the first error ends the overlay).
        config = C::deserialize(&fields)
            .map_err(|e| invalid(&format!("--{flag}"), format!("{}: {e}", shown(value))))?;
    }
    Ok(config)
}

/// A value as the user wrote it (lists comma-separated).
fn shown(value: &Value) -> String {
    match value {
        Value::Object(table) => table
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","),
        Value::String(s) => s.clone(),
        Value::Array(items) => joined(items),
        v => v.to_string(),
    }
}

fn invalid(field: &str, message: String) -> ConfigError {
    ConfigError::Invalid {
        field: field.to_string(),
        message,
    }
}

impl Choices for crate::citations::MatchLevel {
    const NAMES: &'static [&'static str] = &["exact", "normalized", "fuzzy"];
}

impl Choices for crate::citations::FuzzySearch {
    const NAMES: &'static [&'static str] = &["lossless", "fast"];
}

impl Choices for crate::agreement::Level {
    const NAMES: &'static [&'static str] = &["nominal", "ordinal", "interval", "ratio"];
}

impl Choices for crate::compare::Cluster {
    const NAMES: &'static [&'static str] = &["none", "source"];
}

impl Choices for crate::texteval::Profile {
    const NAMES: &'static [&'static str] = &["reference", "standard"];
}

#[cfg(feature = "semantic")]
impl Choices for crate::semantic::methods::Method {
    const NAMES: &'static [&'static str] = &[
        "keyword",
        "semantic_fixed",
        "semantic_dynamic",
        "llm_judge",
        "hybrid",
    ];
}

#[cfg(feature = "semantic")]
impl Choices for crate::semantic::methods::Optimize {
    const NAMES: &'static [&'static str] = &["accuracy", "f1"];
}

/// Each name deserializes to a value that serializes to that name, and no
/// two names are one value (for the tests of each [`Choices`]).
#[cfg(test)]
pub(crate) fn names_round_trip<T>()
where
    T: Choices + serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let mut seen: Vec<T> = Vec::new();
    for name in T::NAMES {
        let v: T = serde_json::from_value(Value::String(name.to_string()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            serde_json::to_value(&v).unwrap(),
            Value::String(name.to_string())
        );
        assert!(!seen.contains(&v), "{name} twice");
        seen.push(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_values_are_trimmed_deduplicated_and_none_is_empty() {
        let v = |items: &[&str], none_empty, unique| {
            list_value(items.iter().copied(), none_empty, unique)
        };
        assert_eq!(
            v(&[" a", "", "b ", "a"], false, false),
            serde_json::json!(["a", "b", "a"])
        );
        assert_eq!(
            v(&[" a", "", "b ", "a"], false, true),
            serde_json::json!(["a", "b"])
        );
        assert_eq!(v(&["None"], true, false), serde_json::json!([]));
        assert_eq!(v(&["none"], false, false), serde_json::json!(["none"]));
        assert_eq!(
            v(&["none", "x"], true, false),
            serde_json::json!(["none", "x"])
        );
        assert_eq!(finite(" 0.5 "), Ok(0.5));
        assert!(finite("NaN").is_err() && finite("-inf").is_err() && finite("x").is_err());
        assert!(bounds("overall=inf").unwrap_err().contains("overall"));
        assert_eq!(bounds("a=0.5,b=1").unwrap().len(), 2);
    }

    #[test]
    fn the_help_is_the_first_paragraph_then_the_default() {
        let s = Setting {
            key: "seed",
            flag: "seed",
            help: "Bootstrap seed.\n\nThe same seed, the same draw.",
            value_name: None,
            kind: Kind::UInt,
            tag: None,
        };
        let (help, long) = s.help_texts(&serde_json::json!({"seed": 42}));
        assert_eq!(help, "Bootstrap seed [default: 42]");
        assert_eq!(
            long,
            "Bootstrap seed [default: 42]\n\nThe same seed, the same draw."
        );
        let switch = Setting {
            kind: Kind::Switch,
            help: "No plots (e.g. P.N.G.).",
            ..s
        };
        assert_eq!(
            switch.help_texts(&serde_json::json!({"seed": true})).0,
            "No plots (e.g. P.N.G.)"
        );
    }

    #[test]
    fn every_choice_is_a_serde_name() {
        names_round_trip::<crate::citations::MatchLevel>();
        names_round_trip::<crate::citations::FuzzySearch>();
        names_round_trip::<crate::agreement::Level>();
        names_round_trip::<crate::compare::Cluster>();
        names_round_trip::<crate::texteval::Profile>();
        #[cfg(all(feature = "net", feature = "semantic"))]
        {
            names_round_trip::<crate::semantic::methods::Method>();
            names_round_trip::<crate::semantic::methods::Optimize>();
        }
    }
}
