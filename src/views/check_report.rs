//! `report.html` of a `check-report` run: the report's own text with each
//! quote highlighted by its attribution class (a colour and a text badge,
//! not colour alone), the counts on top, a filter by class, and for each
//! quote a card with its source passage, speaker and time that a click on
//! the quote opens. One self-contained file (styles and script inline).
//! The filter can be set from the address: `report.html#class=fabricated`.

use super::audit::{context, Context};
use super::html::{escape, HtmlPage};
use crate::check_report::{CheckedQuote, Summary};
use crate::citations::attribution::Attribution;
use crate::corpus::{CorpusError, TranscriptSet};

/// The class a quote is shown under (`unknown` when it has none).
fn class_of(q: &CheckedQuote) -> &'static str {
    q.result
        .attributed
        .attribution
        .map_or("unknown", Attribution::as_str)
}

/// `h:mm:ss` (or `m:ss`) of a time in seconds.
fn clock(t: f64) -> String {
    let t = t.max(0.0).floor() as u64;
    let (h, m, s) = (t / 3600, t / 60 % 60, t % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// A passage of a transcript as markup.
fn passage(c: &Context) -> String {
    let mut out = String::from("<div class=\"passage\">");
    out.push_str(&escape(&c.before));
    for (text, differs) in &c.matched {
        let class = if *differs { "m d" } else { "m" };
        out.push_str(&format!("<span class=\"{class}\">{}</span>", escape(text)));
    }
    out.push_str(&escape(&c.after));
    out.push_str("</div>");
    out
}

/// The card of one quote: its verdict and attribution, who the report
/// says said it, and the passage where it stands.
fn card(
    q: &CheckedQuote,
    transcripts: &TranscriptSet,
    speakers: &crate::citations::turns::SpeakerConfig,
) -> Result<String, CorpusError> {
    let r = &q.result;
    let class = class_of(q);
    let mut body = String::new();
    let cited = match &q.cited {
        Some(c) => format!(
            "cited as “{}” → {} / {}",
            escape(&c.label),
            escape(c.source.as_deref().unwrap_or("unresolved")),
            escape(c.speaker.as_deref().unwrap_or("no speaker"))
        ),
        None => "not cited".to_string(),
    };
    body.push_str(&format!("<p class=\"meta\">{cited}</p>"));
    body.push_str(&meaning_badges(r.check.meaning_changes()));
    let text_of = |source: &str| -> Result<Option<String>, CorpusError> {
        match transcripts.get(source) {
            Some(t) => Ok(Some(t.text()?.into_owned())),
            None => Ok(None),
        }
    };
    let meta = |source: &str, speaker: Option<&str>, time: Option<String>| {
        format!(
            "<p class=\"meta\">{} · speaker: {}{}</p>",
            escape(source),
            escape(speaker.unwrap_or("none")),
            time.map(|t| format!(" · {t}")).unwrap_or_default()
        )
    };
    let shown = |t: crate::corpus::formats::QuoteTime| {
        let s = t.start?;
        Some(match t.end {
            Some(e) => format!("{}–{}", clock(s), clock(e)),
            None => clock(s),
        })
    };
    let time = r.time.and_then(shown);
    let span = r.check.byte_span.clone().or(r.check.closest_bytes.clone());
    if let Some(os) = &r.attributed.other_source {
        body.push_str(&format!(
            "<p>Not in the cited transcript; found in <strong>{}</strong>:</p>",
            escape(&os.source)
        ));
        if let Some(text) = text_of(&os.source)? {
            let when = transcripts
                .get(&os.source)
                .and_then(|t| t.time_of(os.byte_span.clone()))
                .and_then(|t| t.start)
                .map(clock);
            body.push_str(&meta(&os.source, os.span_speaker.as_deref(), when));
            body.push_str(&passage(&context(
                &text,
                os.byte_span.clone(),
                Some(&q.text),
            )));
        }
    } else if !r.attributed.pieces.is_empty() {
        body.push_str("<p>Its pieces in the transcript:</p>");
        for p in &r.attributed.pieces {
            let t = p.time.and_then(|t| t.start).map(clock);
            body.push_str(&meta(
                r.source.as_deref().unwrap_or(""),
                p.span_speaker.as_deref(),
                t,
            ));
            body.push_str(&format!(
                "<div class=\"passage\"><span class=\"m\">{}</span></div>",
                escape(&p.text)
            ));
        }
    } else if let (Some(source), Some(span)) = (r.source.as_deref(), span) {
        if let Some(text) = text_of(source)? {
            if !r.found {
                body.push_str("<p>The closest passage:</p>");
            }
            // A found span's speaker and time come with its result; the
            // closest passage of a quote not found gets its own, found the
            // same way (the turn it starts in, the cue it starts in).
            let (speaker, time) = match r.check.byte_span {
                Some(_) => (r.attributed.span_speaker.clone(), time),
                None => (
                    crate::citations::turns::Turns::of(
                        &text,
                        transcripts.get(source).and_then(|t| t.labels()),
                        speakers,
                    )
                    .speaker_at(span.start)
                    .map(str::to_string),
                    transcripts
                        .get(source)
                        .and_then(|t| t.time_of(span.clone()))
                        .and_then(shown),
                ),
            };
            body.push_str(&meta(source, speaker.as_deref(), time));
            body.push_str(&passage(&context(&text, span, Some(&q.text))));
        }
    } else {
        body.push_str("<p>It stands in no transcript.</p>");
    }
    if let Some(n) = &r.nearest {
        body.push_str(&format!(
            "<p>What was said (its meaning nearest, similarity {:.3}):</p>",
            n.similarity
        ));
        body.push_str(&meta(
            r.source.as_deref().unwrap_or(""),
            n.speaker.as_deref(),
            n.time.and_then(shown),
        ));
        body.push_str(&format!(
            "<div class=\"passage\"><span class=\"m\">{}</span></div>",
            escape(&n.text)
        ));
    }
    if let Some(l) = &r.location {
        body.push_str(&format!(
            "<p class=\"meta\">{}</p>",
            escape(&location_note(l))
        ));
    }
    Ok(format!(
        "<details class=\"card\" id=\"card-{id}\" data-class=\"{class}\"><summary><strong>{id}</strong> · line {line}, column {col} · \
         <span class=\"badge b-{class}\">{class}</span> · verdict {verdict} · similarity {sim:.2}</summary>\
         <p>“{text}”</p>{body}</details>\n",
        id = escape(&q.quote_id),
        line = q.line,
        col = q.column,
        verdict = r.check.verdict.as_str(),
        sim = r.check.similarity,
        text = escape(&q.text),
    ))
}

/// Where a quote was cited against where it stands, in words.
fn location_note(l: &crate::corpus::Location) -> String {
    match *l {
        crate::corpus::Location::Seconds {
            cited,
            found: Some(found),
            delta: Some(delta),
        } => format!(
            "cited at {}, said at {} ({}{delta} s)",
            clock(cited),
            clock(found),
            if delta > 0.0 { "+" } else { "" }
        ),
        crate::corpus::Location::Seconds { cited, .. } => {
            format!("cited at {}; the transcript has no times", clock(cited))
        }
        crate::corpus::Location::Lines {
            cited: [first, last],
            found,
            ..
        } if first == last => format!("cited at line {first}, found on line {found}"),
        crate::corpus::Location::Lines {
            cited: [first, last],
            found,
            ..
        } => format!("cited at lines {first}-{last}, found on line {found}"),
    }
}

/// A quote's changes of meaning, each a badge with its class and the two
/// sides' words (nothing when it changes nothing).
pub(crate) fn meaning_badges(changes: &[crate::citations::MeaningChange]) -> String {
    if changes.is_empty() {
        return String::new();
    }
    let side = |s: &str| {
        if s.is_empty() {
            "—".to_string()
        } else {
            format!("“{}”", escape(s))
        }
    };
    let badges: Vec<String> = changes
        .iter()
        .map(|c| {
            format!(
                "<span class=\"meaning\" title=\"changes the meaning\"><b>{}</b> {} for {}</span>",
                c.class.as_str(),
                side(&c.quote),
                side(&c.source)
            )
        })
        .collect();
    format!(
        "<p class=\"meta\">changes what was said: {}</p>",
        badges.join(" ")
    )
}

/// The report's text with every quote highlighted and linked to its card.
fn highlighted(text: &str, quotes: &[CheckedQuote]) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut at = 0;
    let mut ordered: Vec<&CheckedQuote> = quotes.iter().collect();
    ordered.sort_by_key(|q| q.bytes.start);
    for q in ordered {
        let (s, e) = (q.bytes.start, q.bytes.end.min(text.len()));
        if s < at || s > e || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        let class = class_of(q);
        out.push_str(&escape(&text[at..s]));
        out.push_str(&format!(
            "<a class=\"q c-{class}\" href=\"#card-{id}\" data-q=\"{id}\" data-class=\"{class}\" title=\"{class}\">{}</a>\
             <span class=\"badge b-{class}\">{class}</span>",
            escape(&text[s..e]),
            id = escape(&q.quote_id),
        ));
        at = e;
    }
    out.push_str(&escape(&text[at..]));
    out
}

/// The whole page (`speakers`: how the transcripts' turns are found, for
/// the speaker of a closest passage).
pub(crate) fn render(
    text: &str,
    quotes: &[CheckedQuote],
    summary: &Summary,
    transcripts: &TranscriptSet,
    speakers: &crate::citations::turns::SpeakerConfig,
) -> Result<String, CorpusError> {
    let mut page = HtmlPage::new("Quotes of the report, checked");
    page.style(&super::assets::CHECK_REPORT_CSS);
    let share = summary
        .ok_share
        .map_or("n/a".to_string(), |s| format!("{:.1}%", s * 100.0));
    page.paragraph(&format!(
        "{}: {} cited, {} with a label that did not resolve, {} uncited; {} found; {} ok ({share}).",
        super::count(summary.quotes, "quote", "quotes"),
        summary.cited, summary.unresolved, summary.uncited, summary.found, summary.ok
    ));
    let rows: Vec<Vec<String>> = Attribution::ALL
        .iter()
        .map(|a| {
            vec![
                a.as_str().to_string(),
                summary
                    .attribution
                    .get(a.as_str())
                    .copied()
                    .unwrap_or(0)
                    .to_string(),
            ]
        })
        .collect();
    page.table("counts", &["attribution".into(), "quotes".into()], &rows);
    let mut options = String::from("<option value=\"all\">all classes</option>");
    for a in Attribution::ALL {
        let n = summary.attribution.get(a.as_str()).copied().unwrap_or(0);
        options.push_str(&format!(
            "<option value=\"{0}\">{0} ({n})</option>",
            a.as_str()
        ));
    }
    page.raw(&format!(
        "<p><label for=\"filter\">Show: </label><select id=\"filter\">{options}</select></p>\n"
    ));
    page.heading(2, "The report");
    page.raw(&format!(
        "<div class=\"report\" id=\"report\">{}</div>\n",
        highlighted(text, quotes)
    ));
    page.heading(2, "Quotes");
    let mut cards = String::new();
    for q in quotes {
        cards.push_str(&card(q, transcripts, speakers)?);
    }
    page.raw(&cards);
    page.note(&format!("signature: {}", summary.signature));
    page.script(super::assets::CHECK_REPORT_JS);
    Ok(page.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_times() {
        assert_eq!(clock(0.0), "0:00");
        assert_eq!(clock(751.9), "12:31");
        assert_eq!(clock(3725.0), "1:02:05");
    }
}
