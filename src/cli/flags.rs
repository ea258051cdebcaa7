//! The flags of a job's settings, built from its configuration's
//! [`Settings`] list (one declaration per setting: the field), and the
//! configuration they resolve to: the `--config` file's (or the defaults),
//! with each flag given on the command line laid over it.

use crate::jobs::settings::{bounds, finite, list_value, overlay, Kind, Setting, Settings};
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

/// The settings tagged `api` (`rag ask` takes them alone).
#[derive(Debug, Clone)]
pub struct Api;

impl Pick for Api {
    fn pick(s: &Setting) -> bool {
        s.tag == Some("api")
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

    /// The default configuration with the flags given laid over it,
    /// resolved once by `resolve` (which checks it).
    pub fn resolved<R>(
        &self,
        resolve: impl FnOnce(&C) -> Result<R, crate::jobs::ConfigError>,
    ) -> anyhow::Result<(C, R)> {
        let config = self.over(C::default())?;
        let r = resolve(&config)?;
        Ok((config, r))
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
    let (help, long_help) = s.help_texts(defaults);
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
            .value_parser(ValueParser::new(bounds))
            .action(ArgAction::Append),
        Kind::Choice(names) => arg.value_parser(PossibleValuesParser::new(
            names.iter().map(|n| PossibleValue::new(*n)),
        )),
        Kind::Parsed(check) => arg.value_parser(ValueParser::new(move |v: &str| {
            check(v).map(|()| v.to_string())
        })),
    }
}

/// A flag's value refused as a whole (not item by item), naming the flag.
fn refused(s: &Setting, message: String) -> clap::Error {
    clap::Error::raw(
        clap::error::ErrorKind::ValueValidation,
        format!("invalid value for '--{}': {message}\n", s.flag),
    )
}

/// The value a setting was given on the command line, as its key holds it.
/// A set of gates given empty (`--fail-on ''`, `--fail-under ''`) or with
/// one metric twice (`--fail-under existence=0.5,existence=0.9`) is
/// refused: neither says which gate is meant.
fn value_of(s: &Setting, m: &ArgMatches) -> Result<Option<Value>, clap::Error> {
    if m.value_source(s.key) != Some(ValueSource::CommandLine) {
        return Ok(None);
    }
    Ok(Some(match s.kind {
        Kind::Switch => Value::Bool(m.get_flag(s.key)),
        Kind::UInt => match m.get_one::<u64>(s.key) {
            Some(v) => Value::from(*v),
            None => return Ok(None),
        },
        Kind::Int => match m.get_one::<i64>(s.key) {
            Some(v) => Value::from(*v),
            None => return Ok(None),
        },
        Kind::Float => match m.get_one::<f64>(s.key) {
            Some(v) => Value::from(*v),
            None => return Ok(None),
        },
        Kind::Text | Kind::Choice(_) | Kind::Parsed(_) => match m.get_one::<String>(s.key) {
            Some(v) => Value::String(v.clone()),
            None => return Ok(None),
        },
        Kind::List {
            none_empty, unique, ..
        } => {
            let list = list_value(
                m.get_many::<String>(s.key)
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
                none_empty,
                unique,
            );
            // A set of gates (`unique`) given as nothing.
            if unique && list.as_array().is_some_and(Vec::is_empty) {
                return Err(refused(
                    s,
                    "no class given (leave the flag out for no gate)".into(),
                ));
            }
            list
        }
        Kind::Repeat => Value::Array(
            m.get_many::<String>(s.key)
                .into_iter()
                .flatten()
                .map(|v| Value::String(v.trim().to_string()))
                .collect(),
        ),
        Kind::Bounds => {
            let mut table = serde_json::Map::new();
            for g in m
                .get_many::<Vec<crate::gates::Gate>>(s.key)
                .into_iter()
                .flatten()
                .flatten()
            {
                if let Some(first) = table.insert(g.metric.clone(), Value::from(g.bound)) {
                    return Err(refused(
                        s,
                        format!(
                            "{} is given twice ({first} and {}): give each metric once",
                            g.metric, g.bound
                        ),
                    ));
                }
            }
            if table.is_empty() {
                return Err(refused(
                    s,
                    "no gate given (leave the flag out for no gate)".into(),
                ));
            }
            Value::Object(table)
        }
    }))
}

impl<C: JobConfig + Settings, P: Pick> clap::FromArgMatches for Flags<C, P> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for s in Self::picked() {
            if let Some(v) = value_of(&s, m)? {
                given.push((s.key, v));
            }
        }
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
