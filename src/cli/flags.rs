//! The flags of a job's settings, built from its configuration's
//! [`Settings`] list (one declaration per setting: the field), and the
//! configuration they resolve to: the `--config` file's (or the defaults),
//! with each flag given on the command line laid over it.

use crate::jobs::settings::{default_shown, overlay, Kind, Setting, Settings};
use crate::jobs::JobConfig;
use clap::builder::{PossibleValue, PossibleValuesParser, ValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::Value;
use std::marker::PhantomData;

/// Which of a configuration's settings a command takes as flags.
pub trait Pick {
    /// Whether `setting` is one of them.
    fn pick(setting: &Setting) -> bool;
}

/// Every setting.
#[derive(Debug, Clone)]
pub struct Every;

impl Pick for Every {
    fn pick(_: &Setting) -> bool {
        true
    }
}

/// The flags of `C`'s settings that `P` picks, and the values given.
#[derive(Clone)]
pub struct Flags<C, P = Every> {
    given: Vec<(&'static str, Value)>,
    config: PhantomData<fn() -> (C, P)>,
}

impl<C, P> std::fmt::Debug for Flags<C, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Flags").field("given", &self.given).finish()
    }
}

impl<C: JobConfig + Settings, P: Pick> Flags<C, P> {
    /// `base` with the flags given laid over it (exit 2 naming the flag
    /// when a value does not fit its setting).
    pub fn over(&self, base: C) -> anyhow::Result<C> {
        Ok(overlay(base, &self.given)?)
    }

    /// The default configuration with the flags given laid over it,
    /// checked (for the commands without `--config`).
    pub fn checked(&self) -> anyhow::Result<C> {
        let config = self.over(C::default())?;
        config.validate()?;
        Ok(config)
    }

    /// Whether the flag of `key` was given.
    pub fn given(&self, key: &str) -> bool {
        self.given.iter().any(|(k, _)| *k == key)
    }

    fn picked() -> impl Iterator<Item = Setting> {
        C::settings().into_iter().filter(P::pick)
    }
}

/// The clap argument of one setting; `defaults` is the default
/// configuration as JSON (its value at the key is shown in the help).
fn arg_of(s: &Setting, defaults: &Value) -> Arg {
    // As clap's derive shows a doc comment: the first paragraph without
    // its closing period as the help, the whole comment as the long help
    // (`--help`); the default after the first paragraph.
    let default = default_shown(defaults, s.key)
        .filter(|_| !matches!(s.kind, Kind::Switch))
        .map(|d| format!(" [default: {d}]"))
        .unwrap_or_default();
    let (first, rest) = s.help.split_once("\n\n").unwrap_or((s.help, ""));
    let first = match first.strip_suffix('.') {
        Some(cut) if !cut.ends_with('.') => cut,
        _ => first,
    };
    let help = format!("{first}{default}");
    let long_help = if rest.is_empty() {
        help.clone()
    } else {
        format!("{help}\n\n{rest}")
    };
    let arg = Arg::new(s.key).long(s.flag).help(help).long_help(long_help);
    let arg = match (s.value_name, s.kind) {
        (Some(name), _) => arg.value_name(name),
        (None, Kind::Switch) => arg,
        (None, Kind::List { .. }) => arg.value_name("A,B,..."),
        (None, _) => arg.value_name(s.key.to_ascii_uppercase()),
    };
    match s.kind {
        Kind::Switch => arg.action(ArgAction::SetTrue),
        Kind::UInt => arg.value_parser(clap::value_parser!(u64)),
        Kind::Int => arg
            .value_parser(clap::value_parser!(i64))
            .allow_negative_numbers(true),
        // A negative value reaches the setting's range check, which names
        // the range.
        Kind::Float => arg
            .value_parser(ValueParser::new(finite))
            .allow_negative_numbers(true),
        Kind::Text => arg.value_parser(ValueParser::string()),
        Kind::List { check, .. } => arg
            .value_parser(ValueParser::new(move |v: &str| match v.trim() {
                "" => Ok(String::new()),
                item => check.map_or(Ok(()), |c| c(item)).map(|()| v.to_string()),
            }))
            .value_delimiter(',')
            .action(ArgAction::Append),
        Kind::Repeat => arg.action(ArgAction::Append),
        Kind::Bounds => arg
            .value_parser(ValueParser::new(|v: &str| {
                let gates = crate::gates::parse(v)?;
                match gates.iter().find(|g| !g.bound.is_finite()) {
                    Some(g) => Err(format!("{}: the bound is not a finite number", g.metric)),
                    None => Ok(gates),
                }
            }))
            .action(ArgAction::Append),
        Kind::Choice(names) => arg.value_parser(PossibleValuesParser::new(
            names.iter().map(|n| PossibleValue::new(*n)),
        )),
        Kind::Parsed(check) => arg.value_parser(ValueParser::new(move |v: &str| {
            check(v).map(|()| v.to_string())
        })),
    }
}

/// A finite number (NaN and infinities refused by the parser).
fn finite(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        Ok(_) => Err("not a finite number".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The value a setting was given on the command line, as its key holds it.
fn value_of(s: &Setting, m: &ArgMatches) -> Option<Value> {
    if m.value_source(s.key) != Some(ValueSource::CommandLine) {
        return None;
    }
    let texts = || -> Vec<Value> {
        m.get_many::<String>(s.key)
            .into_iter()
            .flatten()
            .map(|v| Value::String(v.trim().to_string()))
            .collect()
    };
    Some(match s.kind {
        Kind::Switch => Value::Bool(m.get_flag(s.key)),
        Kind::UInt => Value::from(*m.get_one::<u64>(s.key)?),
        Kind::Int => Value::from(*m.get_one::<i64>(s.key)?),
        Kind::Float => Value::from(*m.get_one::<f64>(s.key)?),
        Kind::Text | Kind::Choice(_) | Kind::Parsed(_) => {
            Value::String(m.get_one::<String>(s.key)?.clone())
        }
        Kind::List {
            none_empty, unique, ..
        } => {
            let mut items: Vec<Value> = texts()
                .into_iter()
                .filter(|v| v.as_str().is_some_and(|t| !t.is_empty()))
                .collect();
            if unique {
                let mut seen = Vec::new();
                items.retain(|v| {
                    let new = !seen.contains(v);
                    seen.push(v.clone());
                    new
                });
            }
            let none = items.len() == 1
                && items[0]
                    .as_str()
                    .is_some_and(|v| v.eq_ignore_ascii_case("none"));
            Value::Array(if none_empty && none {
                Vec::new()
            } else {
                items
            })
        }
        Kind::Repeat => Value::Array(texts()),
        Kind::Bounds => Value::Object(
            m.get_many::<Vec<crate::gates::Gate>>(s.key)
                .into_iter()
                .flatten()
                .flatten()
                .map(|g| (g.metric.clone(), Value::from(g.bound)))
                .collect(),
        ),
    })
}

impl<C: JobConfig + Settings, P: Pick> clap::FromArgMatches for Flags<C, P> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let given = Self::picked()
            .filter_map(|s| value_of(&s, m).map(|v| (s.key, v)))
            .collect();
        Ok(Flags {
            given,
            config: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<C: JobConfig + Settings, P: Pick> clap::Args for Flags<C, P> {
    fn augment_args(cmd: Command) -> Command {
        let defaults = crate::jobs::to_value(&C::default());
        Self::picked().fold(cmd, |cmd, s| cmd.arg(arg_of(&s, &defaults)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    /// `args` parsed by the flags of `C` alone.
    fn parse<C: JobConfig + Settings>(args: &[&str]) -> Result<Flags<C>, clap::Error> {
        let cmd = Flags::<C>::augment_args(Command::new("t").no_binary_name(true));
        let m = cmd.try_get_matches_from(args)?;
        Flags::<C>::from_arg_matches(&m)
    }

    /// A value of each kind, different from the setting's default, and
    /// the JSON the configuration then holds at the key.
    fn sample<C: JobConfig>(s: &Setting) -> (Vec<String>, Value) {
        let flag = format!("--{}", s.flag);
        let default = crate::jobs::to_value(&C::default())
            .get(s.key)
            .cloned()
            .unwrap_or(Value::Null);
        let text = |v: &str| (vec![flag.clone(), v.to_string()], Value::String(v.into()));
        match s.kind {
            Kind::Switch => (vec![flag.clone()], Value::Bool(true)),
            Kind::UInt => (vec![flag.clone(), "7".into()], Value::from(7u64)),
            Kind::Int => (vec![flag.clone(), "-3".into()], Value::from(-3i64)),
            Kind::Float => (vec![flag.clone(), "0.25".into()], Value::from(0.25)),
            Kind::Text => text("x-value"),
            Kind::Parsed(_) => text("2/3"),
            Kind::Choice(names) => {
                let name = names
                    .iter()
                    .find(|n| default.as_str() != Some(**n))
                    .expect("a choice other than the default");
                text(name)
            }
            Kind::List { .. } => (
                vec![flag.clone(), "a,b".into(), flag.clone(), "c".into()],
                serde_json::json!(["a", "b", "c"]),
            ),
            Kind::Repeat => (
                vec![flag.clone(), "K=a,b".into(), flag.clone(), "L=c".into()],
                serde_json::json!(["K=a,b", "L=c"]),
            ),
            Kind::Bounds => (
                vec![
                    flag.clone(),
                    "m1=0.5,m2=0.25".into(),
                    flag.clone(),
                    "m3=1".into(),
                ],
                serde_json::json!({"m1": 0.5, "m2": 0.25, "m3": 1.0}),
            ),
        }
    }

    /// Every setting's flag reaches its field, and that field alone.
    fn every_flag_sets_its_field<C: JobConfig + Settings>() {
        let base = crate::jobs::to_value(&C::default());
        let settings = C::settings();
        assert!(!settings.is_empty(), "{}", C::COMMAND);
        for s in settings {
            if matches!(s.kind, Kind::List { check: Some(_), .. }) {
                continue; // items checked: see `a_checked_list_refuses_an_unknown_item`
            }
            let (args, expected) = sample::<C>(&s);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let flags =
                parse::<C>(&args).unwrap_or_else(|e| panic!("{}: {args:?}: {e}", C::COMMAND));
            assert!(flags.given(s.key), "{} {}", C::COMMAND, s.key);
            let got = crate::jobs::to_value(
                &flags
                    .over(C::default())
                    .unwrap_or_else(|e| panic!("{} {args:?}: {e}", C::COMMAND)),
            );
            let mut want = base.clone();
            want[s.key] = expected;
            assert_eq!(got, want, "{} {args:?}", C::COMMAND);
            assert!(
                !s.help.is_empty() && !s.help.contains("[`") && !s.help.contains("crate::"),
                "{} {}: {:?}",
                C::COMMAND,
                s.key,
                s.help
            );
        }
    }

    #[test]
    fn every_setting_of_every_job_has_a_flag_that_sets_it() {
        use crate::jobs::*;
        every_flag_sets_its_field::<evaluate::Config>();
        every_flag_sets_its_field::<check_report::Config>();
        every_flag_sets_its_field::<agreement::Config>();
        every_flag_sets_its_field::<compare::Config>();
        every_flag_sets_its_field::<grounding::Config>();
        every_flag_sets_its_field::<hotpot::Config>();
        every_flag_sets_its_field::<judge_answers::Config>();
        every_flag_sets_its_field::<judge_answers::ThresholdConfig>();
        every_flag_sets_its_field::<lexical::Config>();
        every_flag_sets_its_field::<rag::Config>();
        every_flag_sets_its_field::<text_eval::Config>();
    }

    #[test]
    fn a_flag_not_given_leaves_the_files_setting() {
        use crate::jobs::evaluate::Config;
        let file = Config {
            no_plots: true,
            seed: 7,
            fillers: Some(vec!["um".into()]),
            ..Config::default()
        };
        let flags = parse::<Config>(&["--no-html"]).unwrap();
        let c = flags.over(file.clone()).unwrap();
        assert!(c.no_plots && c.no_html, "a switch not given is not false");
        assert_eq!((c.seed, c.fillers), (7, Some(vec!["um".to_string()])));
        // Given, a flag wins over the file.
        let c = parse::<Config>(&["--seed", "9", "--fillers", "none"])
            .unwrap()
            .over(file)
            .unwrap();
        assert_eq!((c.seed, c.fillers), (9, Some(Vec::new())));
    }

    #[test]
    fn fail_under_bounds_are_added_to_the_files() {
        use crate::jobs::evaluate::Config;
        let mut file = Config::default();
        file.fail_under.insert("existence".into(), 0.9);
        file.fail_under.insert("overall".into(), 0.1);
        let c = parse::<Config>(&["--fail-under", "overall=0.5,exact=0.25"])
            .unwrap()
            .over(file)
            .unwrap();
        let table: Vec<(&str, f64)> = c.fail_under.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            table,
            [("exact", 0.25), ("existence", 0.9), ("overall", 0.5)]
        );
        let e = parse::<Config>(&["--fail-under", "overall"]).unwrap_err();
        assert!(e.to_string().contains("expected METRIC=VALUE"), "{e}");
        for bound in ["nan", "inf", "-inf"] {
            let e = parse::<Config>(&["--fail-under", &format!("overall={bound}")]).unwrap_err();
            assert!(
                e.to_string()
                    .contains("overall: the bound is not a finite number"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_value_its_setting_refuses_is_named_by_its_flag() {
        use crate::jobs::rag::Config;
        // 2^33 is a u64 (the parser takes it) but not the u32 the field is.
        let flags = parse::<Config>(&["--max-retries", "8589934592"]).unwrap();
        let e = flags.over(Config::default()).unwrap_err().to_string();
        assert!(e.starts_with("--max-retries 8589934592: "), "{e}");
        for (args, needle) in [
            (&["--fuzzy-threshold", "NaN"][..], "not a finite number"),
            (&["--fuzzy-threshold", "inf"][..], "not a finite number"),
            (
                &["--match", "loose"][..],
                "possible values: exact, normalized, fuzzy",
            ),
            (&["--k", "-1"][..], "'-1'"),
        ] {
            let e = parse::<Config>(args).unwrap_err().to_string();
            assert!(e.contains(needle), "{args:?}: {e}");
        }
    }

    #[test]
    fn a_checked_list_refuses_an_unknown_item() {
        use crate::jobs::check_report::Config;
        let c = parse::<Config>(&[
            "--fail-on",
            "fabricated, altered,,",
            "--fail-on",
            "stitched,fabricated",
        ])
        .unwrap()
        .over(Config::default())
        .unwrap();
        let names: Vec<&str> = c.fail_on.iter().map(|a| a.as_str()).collect();
        assert_eq!(names, ["fabricated", "altered", "stitched"]);
        let e = parse::<Config>(&["--fail-on", "ok,made_up"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown attribution class") && e.contains("fabricated"),
            "{e}"
        );
    }

    #[test]
    fn the_help_shows_each_default_from_the_configuration() {
        use crate::jobs::evaluate::Config;
        let mut cmd = Flags::<Config>::augment_args(Command::new("t"));
        let help = cmd.render_help().to_string();
        for shown in [
            "Similarity (0..1) a fuzzy match needs [default: 0.9]",
            "[default: reports]",
            "[default: normalized] [possible values: exact, normalized, fuzzy]",
            "--shard <I/N>",
            "--fillers <A,B,...|none>",
        ] {
            assert!(help.contains(shown), "{shown:?} not in\n{help}");
        }
        // A switch shows no default, an unset setting none either.
        assert!(!help.contains("[default: false]") && !help.contains("[default: null]"));
    }

    #[test]
    fn rag_ask_takes_the_api_settings_alone() {
        use crate::jobs::rag::Config;
        let cmd = Flags::<Config, crate::cli::rag::Api>::augment_args(Command::new("t"));
        let flags: Vec<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
        assert!(
            flags.contains(&"api-url") && flags.contains(&"match"),
            "{flags:?}"
        );
        for run_only in [
            "out",
            "concurrency",
            "seed",
            "shard",
            "fail-under",
            "wordnet",
        ] {
            assert!(!flags.contains(&run_only), "{run_only} in {flags:?}");
        }
    }
}
