//! The tables of an evaluate run: quotes.csv (one row per quote, flat)
//! and items.csv (one row per answer, what `compare` pairs), written a
//! window of pairs at a time (`write_run_from` in the job streams them
//! into the run folder) or whole for the Python functions.

use crate::corpus::QuestionSet;
use crate::report::csv::CsvStream;

/// The columns of `quotes.csv` (`quote`: as cited; `cited_speaker`: who
/// the answer says said it; `span_speaker`: who speaks where it was
/// found).
pub const QUOTE_COLUMNS: [&str; 18] = [
    "pair_id",
    "answer_index",
    "quote_index",
    "quote_id",
    "quote",
    "source",
    "cited_speaker",
    "span_speaker",
    "verdict",
    "attribution",
    "similarity",
    "found",
    "span_start",
    "span_end",
    "time_start",
    "time_end",
    "differences",
    "meaning",
];

/// `quotes.csv`: one row per quote, with a `quote_id` of the form
/// `PAIR/ANSWER/QUOTE` (0-based indices) that `corpus-eval agreement` joins
/// with a coder's sheet; spans in characters of the transcript.
pub(crate) fn quotes_csv(
    questions: &QuestionSet,
    evaluation: &crate::evaluate::Evaluation,
) -> String {
    in_memory(|out| write_quotes_csv(questions, evaluation, out))
}

/// What `write` writes, as text (into memory: nothing to fail; the tables
/// are made of `&str` fields, so it is UTF-8).
fn in_memory(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    let written = write(&mut out);
    debug_assert!(written.is_ok(), "{written:?}");
    String::from_utf8_lossy(&out).into_owned()
}

/// [`quotes_csv`] written to `out` as it is made.
pub(crate) fn write_quotes_csv(
    questions: &QuestionSet,
    evaluation: &crate::evaluate::Evaluation,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut out = crate::report::csv::CsvStream::new(out);
    out.record(QUOTE_COLUMNS)?;
    quote_rows(
        crate::views::results::PairWindow::all(questions, evaluation),
        &mut out,
    )?;
    out.finish()
}

/// The rows of `quotes.csv` for a window of pairs.
pub(crate) fn quote_rows(
    window: crate::views::results::PairWindow<'_>,
    out: &mut CsvStream<&mut dyn std::io::Write>,
) -> std::io::Result<()> {
    for (k, pair) in window.pairs.iter().enumerate() {
        let asked = window.questions.get(k);
        for (a, answer) in pair.answers.iter().enumerate() {
            for (q, quote) in answer.quotes.iter().enumerate() {
                let cited = asked
                    .and_then(|p| p.answers.get(a))
                    .and_then(|x| x.quotes.get(q));
                let (a, q) = (a.to_string(), q.to_string());
                let id = format!("{}/{a}/{q}", pair.id);
                let span = quote.check.span.as_ref();
                let (start, end) = (
                    span.map(|s| s.start.to_string()).unwrap_or_default(),
                    span.map(|s| s.end.to_string()).unwrap_or_default(),
                );
                let similarity = (quote.check.similarity + 0.0).to_string();
                let seconds = |t: Option<f64>| t.map(|t| (t + 0.0).to_string()).unwrap_or_default();
                let (time_start, time_end) = match &quote.time {
                    Some(t) => (seconds(t.start), seconds(t.end)),
                    None => Default::default(),
                };
                let differences = super::differences_cell(quote.check.differences.as_deref());
                let meaning = super::meaning_cell(quote.check.meaning.as_deref());
                out.record([
                    pair.id.as_str(),
                    &a,
                    &q,
                    &id,
                    cited.map_or("", |c| c.quote.as_str()),
                    quote.source.as_deref().unwrap_or(""),
                    cited.and_then(|c| c.speaker.as_deref()).unwrap_or(""),
                    quote.attributed.span_speaker.as_deref().unwrap_or(""),
                    quote.check.verdict.as_str(),
                    quote.attributed.attribution.map_or("", |x| x.as_str()),
                    &similarity,
                    if quote.found { "true" } else { "false" },
                    &start,
                    &end,
                    &time_start,
                    &time_end,
                    &differences,
                    &meaning,
                ])?;
            }
        }
    }
    Ok(())
}

/// The columns of `items.csv`.
pub const ITEM_COLUMNS: [&str; 11] = [
    "pair_id",
    "answer_index",
    "item_id",
    "question_type",
    "source",
    "score",
    "quotes",
    "quotes_found",
    "quotes_ok",
    "existence",
    "strict_existence",
];

/// `items.csv`: one row per answer, `item_id` = `PAIR/ANSWER` (0-based),
/// its score (empty when unscored), its quotes (all, found, found with
/// attribution `ok`), and the pair's `existence` and `strict_existence`
/// (pair-level: the same on every answer of a pair; empty without quotes).
pub(crate) fn items_csv(evaluation: &crate::evaluate::Evaluation) -> String {
    in_memory(|out| write_items_csv(evaluation, out))
}

/// [`items_csv`] written to `out` as it is made.
pub(crate) fn write_items_csv(
    evaluation: &crate::evaluate::Evaluation,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut out = crate::report::csv::CsvStream::new(out);
    out.record(ITEM_COLUMNS)?;
    item_rows(
        crate::views::results::PairWindow::all_results(evaluation),
        &mut out,
    )?;
    out.finish()
}

/// The rows of `items.csv` for `pairs`.
pub(crate) fn item_rows(
    window: crate::views::results::PairWindow<'_>,
    out: &mut CsvStream<&mut dyn std::io::Write>,
) -> std::io::Result<()> {
    use crate::report::csv::number;
    for pair in window.pairs {
        let existence = number(pair.existence_score);
        let strict = number(pair.strict_existence());
        let qtype = pair.qtype.map_or("", |t| t.name());
        for (a, answer) in pair.answers.iter().enumerate() {
            let found = answer.quotes.iter().filter(|q| q.found).count();
            let ok = answer
                .quotes
                .iter()
                .filter(|q| {
                    q.found
                        && q.attributed.attribution
                            == Some(crate::citations::attribution::Attribution::Ok)
                })
                .count();
            out.record([
                pair.id.as_str(),
                &a.to_string(),
                &format!("{}/{a}", pair.id),
                qtype,
                answer.source.as_deref().unwrap_or(""),
                &number(answer.score),
                &answer.quotes.len().to_string(),
                &found.to_string(),
                &ok.to_string(),
                &existence,
                &strict,
            ])?;
        }
    }
    Ok(())
}
