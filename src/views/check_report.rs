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

const STYLE: &str = ".report{white-space:pre-wrap;line-height:1.7;background:#fcfcfc;border:1px solid #ddd;padding:16px;font-family:Georgia,serif}\
a.q{color:inherit;text-decoration:none;border-bottom:3px solid;padding:1px 2px;cursor:pointer}\
a.q.off{opacity:.35}\
.badge{display:inline-block;font:bold 11px Arial,sans-serif;padding:1px 5px;border-radius:3px;margin-left:3px;vertical-align:middle;color:#fff}\
.c-ok{background:#e3f4e1;border-color:#2e7d32}.b-ok{background:#2e7d32}\
.c-wrong_speaker{background:#fff1d6;border-color:#b26a00}.b-wrong_speaker{background:#b26a00}\
.c-interviewer{background:#fff1d6;border-color:#8d6e00}.b-interviewer{background:#8d6e00}\
.c-uncertain_speaker{background:#fff8d6;border-color:#7a6a00}.b-uncertain_speaker{background:#7a6a00}\
.c-cross_turn{background:#fff1d6;border-color:#9e5d00}.b-cross_turn{background:#9e5d00}\
.c-other_source{background:#e3ecfa;border-color:#1d4f91}.b-other_source{background:#1d4f91}\
.c-altered{background:#f3e5f5;border-color:#6a1b9a}.b-altered{background:#6a1b9a}\
.c-stitched{background:#fde7e7;border-color:#a33}.b-stitched{background:#a33}\
.c-fabricated{background:#fbd5d5;border-color:#b71c1c}.b-fabricated{background:#b71c1c}\
.c-unknown{background:#eee;border-color:#555}.b-unknown{background:#555}\
details.card{border:1px solid #ddd;border-radius:6px;margin:8px 0;padding:6px 10px;background:#fff}\
details.card[hidden]{display:none}\
details.card summary{cursor:pointer}\
.passage{white-space:pre-wrap;background:#f8f8f8;border-left:3px solid #999;padding:8px;margin:6px 0;font-family:Georgia,serif}\
.passage .m{background:#fff59d}.passage .d{background:#ffcdd2;text-decoration:underline}\
.meta{color:#555;font-size:90%}\
#counts td.text{font-family:monospace}";

const SCRIPT: &str = "(function(){\
var f=document.getElementById('filter');\
var m=/class=([a-z_]+)/.exec(location.hash);if(m){f.value=m[1];}\
function apply(){var v=f.value,n=0;\
document.querySelectorAll('a.q').forEach(function(a){a.classList.toggle('off',v!=='all'&&a.dataset.class!==v);});\
document.querySelectorAll('details.card').forEach(function(d){d.hidden=v!=='all'&&d.dataset.class!==v;if(!d.hidden){n++;}});\
document.body.setAttribute('data-filter',v);document.body.setAttribute('data-shown',n);}\
f.addEventListener('change',apply);\
document.querySelectorAll('a.q').forEach(function(a){a.addEventListener('click',function(e){\
var d=document.getElementById('card-'+a.dataset.q);if(!d){return;}e.preventDefault();\
d.hidden=false;d.open=true;d.scrollIntoView({block:'center'});});});\
apply();document.body.setAttribute('data-quotes',document.querySelectorAll('a.q').length);})();";

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
    page.style(STYLE);
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
    page.script(SCRIPT);
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
