//! `check-report` as a library function: the quotes of a written report
//! (a synthesis, a memo, a paper) found (`quotes`), their attributions
//! resolved (`cite`), and each checked against the transcripts by the
//! engine `evaluate` uses (verdicts, differences, edited quotes, speakers,
//! attribution classes, times).
//!
//! A cited quote is checked in its cited transcript, against its cited
//! speaker. An uncited quote (or one whose label does not resolve to a
//! transcript) is searched in every transcript: first where it stands
//! exactly or normalized (one multi-pattern pass over the corpus), then,
//! for the rest, by the fuzzy search and the pieces in each transcript;
//! its `source` is where it was found, and it is `fabricated` when it
//! stands nowhere.
//!
//! ```
//! use corpus_eval::check_report::{check, SourceMap};
//! use corpus_eval::corpus::{Transcript, TranscriptSet};
//! use corpus_eval::evaluate::EvalConfig;
//! let t = TranscriptSet::from_transcripts(vec![
//!     Transcript::new("UK-210.txt".into(), "Interviewer: And then?\nGwen: We never went back to the house.\n".into(), 1),
//!     Transcript::new("IS-001.txt".into(), "Interviewer: Why?\nDeclan: The boats were all sold by then.\n".into(), 1),
//! ]);
//! let report = "Gwen said “we never went back to the house”. Others recalled \
//!               “the boats were all sold by then” and “the sea took everything from us”.";
//! let checked = check(report, &t, &SourceMap::default(), &EvalConfig::default(), &Default::default()).unwrap();
//! let classes: Vec<&str> = checked.iter()
//!     .map(|q| q.result.attributed.attribution.map_or("", |a| a.as_str())).collect();
//! assert_eq!(classes, ["ok", "ok", "fabricated"]);
//! assert_eq!(checked[1].result.source.as_deref(), Some("IS-001.txt"));
//! assert_eq!(checked[0].cited.as_ref().unwrap().speaker.as_deref(), Some("Gwen"));
//! ```

pub(crate) mod cite;
pub(crate) mod quotes;
pub use quotes::*;

use crate::citations::attribution::Attribution;
use crate::citations::Verdict;
use crate::corpus::{CorpusError, Quote, TranscriptSet};
use crate::evaluate::{check_quotes, EvalConfig, QuoteResult};
use cite::Resolver;
pub use cite::{Cited, SourceMap};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::Range;

/// A quote of the report, checked.
#[derive(Debug, Clone)]
pub struct CheckedQuote {
    /// `q1`, `q2`, ... in report order.
    pub quote_id: String,
    /// The quoted text as the report gives it.
    pub text: String,
    /// 1-based line in the report.
    pub line: usize,
    /// 1-based column (characters) in the report.
    pub column: usize,
    /// Bytes of the report it occupies (marks included).
    pub bytes: Range<usize>,
    /// True for a block quote.
    pub block: bool,
    /// How the report attributes it (`parenthesis`, `dash`, `name`).
    pub cue: Option<&'static str>,
    /// Who the report attributes it to; None without a cue.
    pub cited: Option<Cited>,
    /// The check: `source` is the transcript it was checked in (the cited
    /// one, or where an uncited quote was found; None when it stands
    /// nowhere).
    pub result: QuoteResult,
}

impl CheckedQuote {
    /// True when found at the match level with attribution `ok`.
    pub fn ok(&self) -> bool {
        self.result.found && self.result.attributed.attribution == Some(Attribution::Ok)
    }
}

/// Finds (as `options` say), attributes and checks every quote of
/// `report`.
pub fn check(
    report: &str,
    transcripts: &TranscriptSet,
    map: &SourceMap,
    config: &EvalConfig,
    options: &quotes::Options,
) -> Result<Vec<CheckedQuote>, CorpusError> {
    let resolver = Resolver::new(map, transcripts, &config.speakers)?;
    let found = quotes::find_with(report, options, &|w| resolver.is_name(w));
    let cited: Vec<Option<Cited>> = found
        .iter()
        .map(|q| q.cue.as_ref().map(|c| resolver.resolve(c.label())))
        .collect();
    let asked: Vec<Quote> = found
        .iter()
        .zip(&cited)
        .map(|(q, c)| Quote {
            quote: q.text.clone(),
            source: c.as_ref().and_then(|c| c.source.clone()),
            speaker: c.as_ref().and_then(|c| c.speaker.clone()),
            place: q.place,
        })
        .collect();
    let results = verify(&asked, transcripts, config)?;
    Ok(found
        .into_iter()
        .zip(cited)
        .zip(results)
        .enumerate()
        .map(|(k, ((q, cited), result))| CheckedQuote {
            quote_id: format!("q{}", k + 1),
            text: q.text,
            line: q.line,
            column: q.column,
            bytes: q.bytes,
            block: q.block,
            cue: q.cue.as_ref().map(quotes::Cue::kind),
            cited,
            result,
        })
        .collect())
}

/// Checks quotes: those with a source there, the others in every
/// transcript (see the module documentation).
pub fn verify(
    asked: &[Quote],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
) -> Result<Vec<QuoteResult>, CorpusError> {
    let (cited, uncited): (Vec<usize>, Vec<usize>) =
        (0..asked.len()).partition(|&k| asked[k].source.is_some());
    let mut out: Vec<Option<QuoteResult>> = vec![None; asked.len()];
    let cited_quotes: Vec<Quote> = cited.iter().map(|&k| asked[k].clone()).collect();
    let groups = vec![None; cited_quotes.len()];
    for (&k, r) in cited
        .iter()
        .zip(check_quotes(&cited_quotes, &groups, transcripts, config)?)
    {
        out[k] = Some(r);
    }
    for (&k, r) in uncited.iter().zip(search_everywhere(
        &uncited.iter().map(|&k| &asked[k]).collect::<Vec<_>>(),
        transcripts,
        config,
    )?) {
        out[k] = Some(r);
    }
    Ok(out
        .into_iter()
        .map(|r| r.unwrap_or_else(|| nowhere(None)))
        .collect())
}

/// The result of a quote that stands in no transcript.
fn nowhere(best: Option<QuoteResult>) -> QuoteResult {
    let similarity = best.as_ref().map_or(0.0, |b| b.check.similarity);
    QuoteResult {
        check: crate::citations::QuoteCheck::not_found(similarity),
        found: false,
        source: None,
        transcript: None,
        attributed: crate::citations::attribution::Attributed {
            attribution: Some(Attribution::Fabricated),
            ..Default::default()
        },
        time: None,
        location: None,
        nearest: None,
    }
}

/// The quotes `asked` (no source) searched in every transcript.
fn search_everywhere(
    asked: &[&Quote],
    transcripts: &TranscriptSet,
    config: &EvalConfig,
) -> Result<Vec<QuoteResult>, CorpusError> {
    let Some(first) = transcripts.transcripts.first() else {
        return Ok(asked.iter().map(|_| nowhere(None)).collect());
    };
    let at = |source: &str| -> Vec<Quote> {
        asked
            .iter()
            .map(|q| Quote {
                source: Some(source.to_string()),
                ..(*q).clone()
            })
            .collect()
    };
    let groups = vec![None; asked.len()];
    // The first transcript, and (by the multi-pattern search of the
    // others) every transcript where a quote stands exactly or normalized.
    let mut best: Vec<QuoteResult> = check_quotes(&at(&first.file), &groups, transcripts, config)?;
    // Found exactly or normalized, attribution `ok`, in the first
    // transcript (or where the multi-pattern search found it): there. A
    // weaker match (edited, fuzzy) or another speaker's turn may stand
    // better in another transcript, so such quotes are searched everywhere
    // below.
    let settled = |r: &QuoteResult| {
        r.found
            && matches!(r.check.verdict, Verdict::Exact | Verdict::Normalized)
            && r.attributed.attribution == Some(Attribution::Ok)
    };
    let elsewhere: Vec<usize> = (0..asked.len())
        .filter(|&k| best[k].attributed.attribution == Some(Attribution::OtherSource))
        .collect();
    if !elsewhere.is_empty() {
        let moved: Vec<Quote> = elsewhere
            .iter()
            .map(|&k| Quote {
                source: best[k]
                    .attributed
                    .other_source
                    .as_ref()
                    .map(|o| o.source.clone()),
                ..asked[k].clone()
            })
            .collect();
        let groups = vec![None; moved.len()];
        for (&k, r) in elsewhere
            .iter()
            .zip(check_quotes(&moved, &groups, transcripts, config)?)
        {
            best[k] = r;
        }
    }
    // The rest (not exact or normalized anywhere): each transcript's fuzzy
    // search and pieces; the best outcome wins, the first transcript on a
    // tie.
    let rest: Vec<usize> = (0..asked.len())
        .filter(|&k| {
            !settled(&best[k]) && best[k].attributed.attribution != Some(Attribution::OtherSource)
        })
        .collect();
    if !rest.is_empty() && transcripts.transcripts.len() > 1 {
        let mut copies: Vec<Quote> = Vec::new();
        let mut owner: Vec<usize> = Vec::new();
        for t in &transcripts.transcripts[1..] {
            for &k in &rest {
                copies.push(Quote {
                    source: Some(t.file.clone()),
                    ..asked[k].clone()
                });
                owner.push(k);
            }
        }
        let groups = vec![None; copies.len()];
        for (k, r) in owner
            .into_iter()
            .zip(check_quotes(&copies, &groups, transcripts, config)?)
        {
            if rank(&r) > rank(&best[k]) {
                best[k] = r;
            }
        }
    }
    Ok(best
        .into_iter()
        .map(|r| match r.attributed.attribution {
            Some(Attribution::Fabricated | Attribution::OtherSource) | None if !r.found => {
                nowhere(Some(r))
            }
            _ => r,
        })
        .collect())
}

/// How well a quote stands in the transcript it was checked in: found
/// (by its class, then verdict, then similarity) before `altered` (by
/// similarity) before `stitched` (by the words its pieces cover) before
/// the rest.
fn rank(r: &QuoteResult) -> (u8, u8, u8, u64) {
    let sim = (r.check.similarity.clamp(0.0, 1.0) * 1e9) as u64;
    let verdict = match r.check.verdict {
        Verdict::Exact => 5,
        Verdict::Normalized => 4,
        Verdict::Edited => 3,
        Verdict::Fuzzy => 2,
        Verdict::NotFound => 1,
        Verdict::UnknownSource => 0,
    };
    let class = r.attributed.attribution;
    if r.found {
        let c = match class {
            Some(Attribution::Ok) => 3,
            Some(Attribution::UncertainSpeaker)
            | Some(Attribution::WrongSpeaker)
            | Some(Attribution::WrongLocation) => 2,
            Some(Attribution::Interviewer) => 1,
            _ => 0,
        };
        return (3, c, verdict, sim);
    }
    match class {
        Some(Attribution::Altered) => (2, 0, verdict, sim),
        Some(Attribution::Stitched) => {
            let covered: usize = r.attributed.pieces.iter().map(|p| p.text.len()).sum();
            (1, 0, 0, covered as u64)
        }
        _ => (0, 0, 0, sim),
    }
}

/// The counts of a checked report (summary.json).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Quotes found in the report.
    pub quotes: usize,
    /// Quotes with a cue whose label resolved to a transcript.
    pub cited: usize,
    /// Quotes with a cue whose label did not resolve to a transcript.
    pub unresolved: usize,
    /// Quotes without a cue.
    pub uncited: usize,
    /// Quotes found at the match level.
    pub found: usize,
    /// Quotes found with attribution `ok`.
    pub ok: usize,
    /// `ok` / `quotes`; None for a report without quotes.
    pub ok_share: Option<f64>,
    /// Quotes per attribution class (every class, zeros included).
    pub attribution: BTreeMap<String, usize>,
    /// Quotes per verdict (every verdict, zeros included).
    pub verdicts: BTreeMap<String, usize>,
    /// Quotes whose match changes what was said: the total and per class.
    pub meaning_changed: crate::citations::MeaningCounts,
    /// What the reader should know: citation labels that resolved to no
    /// transcript, what the transcripts' readers doubt (left out when
    /// there is nothing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The settings' signature.
    pub signature: String,
}

/// Counts a checked report's quotes.
pub fn summarize(quotes: &[CheckedQuote], signature: String) -> Summary {
    let mut attribution: BTreeMap<String, usize> = Attribution::ALL
        .iter()
        .map(|a| (a.as_str().to_string(), 0))
        .collect();
    let mut verdicts: BTreeMap<String, usize> = Verdict::ALL
        .iter()
        .map(|v| (v.as_str().to_string(), 0))
        .collect();
    for q in quotes {
        if let Some(a) = q.result.attributed.attribution {
            *attribution.entry(a.as_str().to_string()).or_default() += 1;
        }
        *verdicts
            .entry(q.result.check.verdict.as_str().to_string())
            .or_default() += 1;
    }
    let resolved = |q: &&CheckedQuote| q.cited.as_ref().is_some_and(|c| c.source.is_some());
    let ok = quotes.iter().filter(|q| q.ok()).count();
    let mut unresolved: Vec<&str> = quotes
        .iter()
        .filter_map(|q| q.cited.as_ref())
        .filter(|c| c.source.is_none() && c.speaker.is_none())
        .map(|c| c.label.as_str())
        .collect();
    let n_unresolved = unresolved.len();
    unresolved.sort_unstable();
    unresolved.dedup();
    let untimed = crate::evaluate::untimed_counts(quotes.iter().map(|q| {
        let name = q
            .result
            .transcript
            .as_deref()
            .or(q.result.source.as_deref());
        (name.unwrap_or(crate::evaluate::NO_SOURCE), &q.result)
    }));
    let mut warnings = if unresolved.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "{} citation label{} resolved to no transcript or speaker ({} quote{}): {}; their quotes are looked for in every transcript and their speakers are not checked, so a misattribution passes. Say what the labels stand for with --sources MAP.csv (rows `label,source,speaker`)",
            unresolved.len(),
            if unresolved.len() == 1 { "" } else { "s" },
            n_unresolved,
            if n_unresolved == 1 { "" } else { "s" },
            crate::corpus::preview(&unresolved.join(", "))
        )]
    };
    warnings.extend(
        untimed
            .iter()
            .map(|(t, n)| crate::evaluate::untimed_warning(t, *n)),
    );
    Summary {
        warnings,
        quotes: quotes.len(),
        cited: quotes.iter().filter(resolved).count(),
        unresolved: quotes
            .iter()
            .filter(|q| q.cited.as_ref().is_some_and(|c| c.source.is_none()))
            .count(),
        uncited: quotes.iter().filter(|q| q.cited.is_none()).count(),
        found: quotes.iter().filter(|q| q.result.found).count(),
        ok,
        ok_share: (!quotes.is_empty()).then(|| ok as f64 / quotes.len() as f64),
        attribution,
        verdicts,
        meaning_changed: crate::citations::MeaningCounts::of(
            quotes.iter().map(|q| q.result.check.meaning_changes()),
        ),
        signature,
    }
}

/// The signature of a check: the matching and speaker settings, the
/// attribution rules, how quotes are found and the source map's digest.
pub fn signature(config: &EvalConfig, min_words: usize, map: Option<(usize, &str)>) -> String {
    let sources = match map {
        Some((n, sha)) => format!("{n}:sha256:{}", &sha[..sha.len().min(12)]),
        None => "none".into(),
    };
    let head =
        crate::signature::Signature::new(format!("corpus-eval:{}", env!("CARGO_PKG_VERSION")));
    crate::evaluate::with_verification(head, config)
        .field(
            "report-quotes",
            format!("marks=straight+curly+low+guillemets;block=markdown;min-words={min_words}"),
        )
        .field("sources", sources)
        .long()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citations::MatchLevel;
    use crate::corpus::Transcript;

    fn set(texts: &[(&str, &str)]) -> TranscriptSet {
        TranscriptSet::from_transcripts(
            texts
                .iter()
                .map(|(f, t)| Transcript::new(f.to_string(), t.to_string(), 1))
                .collect(),
        )
    }

    /// `report` checked against `t` with the default settings.
    fn check_default(report: &str, t: &TranscriptSet) -> Vec<CheckedQuote> {
        check(
            report,
            t,
            &SourceMap::default(),
            &EvalConfig::default(),
            &Default::default(),
        )
        .unwrap()
    }

    fn classes(checked: &[CheckedQuote]) -> Vec<(&str, Option<&str>)> {
        checked
            .iter()
            .map(|q| {
                (
                    q.result.attributed.attribution.map_or("", |a| a.as_str()),
                    q.result.source.as_deref(),
                )
            })
            .collect()
    }

    #[test]
    fn an_uncited_quote_takes_its_best_transcript_not_the_first() {
        let t = set(&[
            (
                "a.txt",
                "Ann: we grew the leeks in the lower field by the river.\n",
            ),
            (
                "b.txt",
                "Bob: we grow the leeks in the lower field by the river.\n",
            ),
        ]);
        let config = EvalConfig {
            match_level: MatchLevel::Fuzzy,
            ..EvalConfig::default()
        };
        let report = "They said “we grow the leeks in the lower field by the river”.";
        let checked = check(
            report,
            &t,
            &SourceMap::default(),
            &config,
            &Default::default(),
        )
        .unwrap();
        assert_eq!(classes(&checked), [("ok", Some("b.txt"))]);
        assert_eq!(checked[0].result.check.verdict, Verdict::Exact);
        // An ambiguous name is a speaker claim: the transcript where it
        // holds wins.
        let t = set(&[
            ("a.txt", "Gwen Hall: the boats were sold that winter.\n"),
            (
                "b.txt",
                "Gwen Price: hello.\nTom: the boats were sold that winter.\n",
            ),
        ]);
        let checked = check_default("Tom remembered “the boats were sold that winter” well.", &t);
        assert_eq!(classes(&checked), [("ok", Some("b.txt"))]);
        let checked = check_default(
            "Gwen remembered “the boats were sold that winter” well.",
            &t,
        );
        let cited = checked[0].cited.as_ref().unwrap();
        assert_eq!(
            (cited.source.as_deref(), cited.speaker.as_deref()),
            (None, Some("Gwen"))
        );
        assert_eq!(classes(&checked), [("ok", Some("a.txt"))]);
        // The first transcript holds it as another speaker's words: the
        // transcript where the named speaker says it wins.
        let t = set(&[
            ("a.txt", "Tom: the boats were sold that winter.\n"),
            (
                "b.txt",
                "Gwen Price: the boats were sold that winter.\nAnn: hi.\n",
            ),
            ("c.txt", "Gwen Hall: hello there.\n"),
        ]);
        let checked = check_default(
            "Gwen remembered “the boats were sold that winter” well.",
            &t,
        );
        assert_eq!(classes(&checked), [("ok", Some("b.txt"))]);
    }

    #[test]
    fn no_transcripts_and_no_quotes() {
        let empty = set(&[]);
        let checked = check_default("“we left in the spring of that year”", &empty);
        assert_eq!(classes(&checked), [("fabricated", None)]);
        let s = summarize(&checked, String::new());
        assert_eq!((s.quotes, s.ok, s.ok_share), (1, 0, Some(0.0)));
        let none = summarize(&[], String::new());
        assert_eq!(none.ok_share, None);
        // Every class, zeros included (issue 54 added uncertain_speaker).
        assert_eq!(none.attribution.len(), Attribution::ALL.len());
    }
}
