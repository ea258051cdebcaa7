//! Number, money, date and time anchors found in a text, with their values
//! normalized so that "five" = 5 = 5.0, "1,000" = 1000, "$3.5 million" =
//! 3500000, "March 3, 2021" = "2021-03-03" and "5 pm" = 17:00.

use super::text::Word;
use crate::text::numbers::parse_prefix;
use regex::{Captures, Regex};
use std::ops::Range;
use std::sync::OnceLock;

/// A calendar date; any part may be unknown ("in 1987" has only a year).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Date {
    /// Year.
    pub year: Option<i32>,
    /// Month, 1-12.
    pub month: Option<u32>,
    /// Day, 1-31.
    pub day: Option<u32>,
}

impl Date {
    /// True when `other` agrees on every part this date states.
    pub(crate) fn is_supported_by(&self, other: &Date) -> bool {
        let agree = |a: Option<u32>, b: Option<u32>| a.is_none() || a == b;
        (self.year.is_none() || self.year == other.year)
            && agree(self.month, other.month)
            && agree(self.day, other.day)
    }

    /// "2021-03-03", "1987", "2021-03", "--03-03".
    pub(crate) fn display(&self) -> String {
        let y = self.year.map_or("-".to_string(), |y| format!("{y:04}"));
        match (self.month, self.day) {
            (Some(m), Some(d)) => format!("{y}-{m:02}-{d:02}"),
            (Some(m), None) => format!("{y}-{m:02}"),
            _ => y,
        }
    }
}

/// What a quantity anchor is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Quantity {
    /// A cardinal or a percentage.
    Number(f64),
    /// An amount of money (the amount; the currency is not compared).
    Money(f64),
    /// A date.
    Date(Date),
    /// A time of day, (hour 0-23, minute).
    Time(u32, u32),
}

impl Quantity {
    /// The anchor kind written in results.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Quantity::Number(_) => "number",
            Quantity::Money(_) => "money",
            Quantity::Date(_) => "date",
            Quantity::Time(..) => "time",
        }
    }

    /// The normalized value as text.
    pub(crate) fn value_text(&self) -> String {
        match self {
            Quantity::Number(v) | Quantity::Money(v) => format_number(*v),
            Quantity::Date(d) => d.display(),
            Quantity::Time(h, m) => format!("{h:02}:{m:02}"),
        }
    }

    /// The numeric value of a number or money anchor.
    pub(crate) fn amount(&self) -> Option<f64> {
        match self {
            Quantity::Number(v) | Quantity::Money(v) => Some(*v),
            _ => None,
        }
    }
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A quantity found in a text and its byte range.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// The quantity.
    pub quantity: Quantity,
    /// Byte range in the text.
    pub range: Range<usize>,
}

const MONTH: &str = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?";

fn month_number(name: &str) -> Option<u32> {
    let n = name.trim_end_matches('.').to_lowercase();
    let m = match n.get(..3)? {
        "jan" => 1,
        "feb" => 2,
        "mar" => 3,
        "apr" => 4,
        "may" => 5,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    Some(m)
}

struct DateRule {
    re: Regex,
    parse: fn(&Captures) -> Option<Date>,
}

fn num<T: std::str::FromStr>(c: &Captures, i: usize) -> Option<T> {
    c.get(i)?.as_str().parse().ok()
}

fn full_year(y: i32) -> i32 {
    if y < 100 {
        if y < 50 {
            2000 + y
        } else {
            1900 + y
        }
    } else {
        y
    }
}

/// Days in a month (February has 29 unless the year is known not to be a
/// leap year).
fn days_in_month(month: u32, year: Option<i32>) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 => match year {
            Some(y) if !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) => 28,
            _ => 29,
        },
        _ => 31,
    }
}

/// The date when it exists in the calendar ("February 30" does not).
fn valid(d: Date) -> Option<Date> {
    let ok_m = d.month.is_none_or(|m| (1..=12).contains(&m));
    let ok_d = d
        .day
        .is_none_or(|x| x >= 1 && x <= d.month.map_or(31, |m| days_in_month(m, d.year)));
    (ok_m && ok_d).then_some(d)
}

fn date_rules() -> &'static [DateRule] {
    static RULES: OnceLock<Vec<DateRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let re = |p: String| Regex::new(&format!("(?i){p}")).unwrap_or_else(|e| panic!("{p}: {e}"));
        vec![
            // 2021-03-03
            DateRule {
                re: re(r"(?-u:\b)(\d{4})-(\d{1,2})-(\d{1,2})(?-u:\b)".into()),
                parse: |c| valid(Date { year: num(c, 1), month: num(c, 2), day: num(c, 3) }),
            },
            // 03/03/2021 (month first; day first when the first part > 12)
            DateRule {
                re: re(r"(?-u:\b)(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?-u:\b)".into()),
                parse: |c| {
                    let (a, b): (u32, u32) = (num(c, 1)?, num(c, 2)?);
                    let (m, d) = if a > 12 { (b, a) } else { (a, b) };
                    valid(Date { year: num::<i32>(c, 3).map(full_year), month: Some(m), day: Some(d) })
                },
            },
            // March 3, 2021 / March 3rd 2021
            DateRule {
                re: re(format!(r"(?-u:\b){MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{{4}})(?-u:\b)")),
                parse: |c| valid(Date { year: num(c, 3), month: month_number(c.get(1)?.as_str()), day: num(c, 2) }),
            },
            // 3 March 2021 / 3rd of March, 2021
            DateRule {
                re: re(format!(r"(?-u:\b)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH},?\s+(\d{{4}})(?-u:\b)")),
                parse: |c| valid(Date { year: num(c, 3), month: month_number(c.get(2)?.as_str()), day: num(c, 1) }),
            },
            // March 2021
            DateRule {
                re: re(format!(r"(?-u:\b){MONTH},?\s+(\d{{4}})(?-u:\b)")),
                parse: |c| valid(Date { year: num(c, 2), month: month_number(c.get(1)?.as_str()), day: None }),
            },
            // March 3
            DateRule {
                re: re(format!(r"(?-u:\b){MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?-u:\b)")),
                parse: |c| valid(Date { year: None, month: month_number(c.get(1)?.as_str()), day: num(c, 2) }),
            },
            // 3 March / 3rd of March
            DateRule {
                re: re(format!(r"(?-u:\b)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}(?-u:\b)")),
                parse: |c| valid(Date { year: None, month: month_number(c.get(2)?.as_str()), day: num(c, 1) }),
            },
            // in 1987, since 2001, the 1990s
            DateRule {
                re: re(r"(?-u:\b)(?:in|since|by|during|from|until|till|before|after|circa|around|year|the)\s+(\d{4})s?(?-u:\b)".into()),
                parse: |c| {
                    let y: i32 = num(c, 1)?;
                    (1000..=2999).contains(&y).then_some(Date { year: Some(y), month: None, day: None })
                },
            },
        ]
    })
}

fn overlaps(taken: &[Range<usize>], r: &Range<usize>) -> bool {
    taken.iter().any(|t| t.start < r.end && r.start < t.end)
}

/// Dates and times of `text`, most specific patterns first, never
/// overlapping.
pub(crate) fn dates_and_times(text: &str) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    let mut taken: Vec<Range<usize>> = Vec::new();
    for rule in date_rules() {
        for c in rule.re.captures_iter(text) {
            let Some(m) = c.get(0) else { continue };
            // "in 1987": the anchor is the year, not the preposition.
            let range = if rule.re.as_str().contains("(?:in|since") {
                c.get(1).map_or(m.range(), |g| g.range())
            } else {
                m.range()
            };
            if overlaps(&taken, &range) {
                continue;
            }
            // A matched text that is no real date ("February 30, 2021") is
            // taken all the same, so a less specific rule cannot pick a
            // part of it ("February 30").
            taken.push(range.clone());
            if let Some(d) = (rule.parse)(&c) {
                out.push(Found {
                    quantity: Quantity::Date(d),
                    range,
                });
            }
        }
    }
    static TIME: OnceLock<[Regex; 2]> = OnceLock::new();
    let time = TIME.get_or_init(|| {
        let re = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        [
            re(r"(?i)(?-u:\b)(\d{1,2}):(\d{2})(?:\s*([ap])\.?m(?-u:\b))?"),
            re(r"(?i)(?-u:\b)(\d{1,2})\s*([ap])\.?m(?-u:\b)"),
        ]
    });
    for (k, re) in time.iter().enumerate() {
        for c in re.captures_iter(text) {
            let Some(m) = c.get(0) else { continue };
            let range = m.range();
            if overlaps(&taken, &range) {
                continue;
            }
            let h: u32 = num(&c, 1).unwrap_or(99);
            let (mi, ampm) = if k == 0 {
                (num(&c, 2).unwrap_or(99), c.get(3))
            } else {
                (0, c.get(2))
            };
            let h = match ampm.map(|a| a.as_str().to_ascii_lowercase()) {
                Some(a) if h <= 12 => (h % 12) + if a == "p" { 12 } else { 0 },
                Some(_) => 99,
                None => h,
            };
            if h < 24 && mi < 60 {
                taken.push(range.clone());
                out.push(Found {
                    quantity: Quantity::Time(h, mi),
                    range,
                });
            }
        }
    }
    out.sort_by_key(|f| f.range.start);
    out
}

fn scale_of(word: &str) -> Option<f64> {
    match word.to_ascii_lowercase().as_str() {
        "thousand" => Some(1e3),
        "million" => Some(1e6),
        "billion" => Some(1e9),
        "trillion" => Some(1e12),
        _ => None,
    }
}

fn is_currency_word(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "dollar"
            | "dollars"
            | "euro"
            | "euros"
            | "pound"
            | "pounds"
            | "usd"
            | "eur"
            | "gbp"
            | "yen"
            | "cent"
            | "cents"
    )
}

/// Numbers and amounts of money written in digits ("1,000", "3.5", "$5",
/// "15%", "$3.5 million", "20 euros").
fn digit_quantities(text: &str) -> Vec<Found> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)(?:(?P<cur>[$€£¥])\s?)?(?-u:\b)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(?P<scale>thousand|million|billion|trillion)(?-u:\b))?(?:\s?(?P<pct>%|percent(?-u:\b)|per cent(?-u:\b)))?(?:\s(?P<curw>dollars?|euros?|pounds?|usd|eur|gbp|yen|cents?)(?-u:\b))?",
        )
        .unwrap_or_else(|e| panic!("{e}"))
    });
    re.captures_iter(text)
        .filter_map(|c| {
            let m = c.get(0)?;
            let mut v: f64 = c.name("num")?.as_str().replace(',', "").parse().ok()?;
            if let Some(s) = c.name("scale").and_then(|s| scale_of(s.as_str())) {
                v *= s;
            }
            let money = c.name("cur").is_some() || c.name("curw").is_some();
            let quantity = if money {
                Quantity::Money(v)
            } else {
                Quantity::Number(v)
            };
            Some(Found {
                quantity,
                range: m.range(),
            })
        })
        .collect()
}

const DETERMINERS: [&str; 9] = [
    "the", "this", "that", "no", "every", "any", "each", "which", "another",
];

/// Numbers written in words ("five", "twenty-one", "one hundred and two",
/// "two million"), with a following currency word making them money. A
/// lone "one" used as a pronoun ("one of", "the one") is skipped.
fn word_quantities(text: &str, toks: &[Word]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if parse_prefix(&[toks[i].as_str()]).is_none() {
            i += 1;
            continue;
        }
        // Tokens joined only by white space or hyphens form one number
        // (a dozen words at most).
        let mut j = i + 1;
        while j < toks.len()
            && j - i < 12
            && text[toks[j - 1].range.end..toks[j].range.start]
                .chars()
                .all(|c| c.is_whitespace() || c == '-')
        {
            j += 1;
        }
        let run: Vec<&str> = toks[i..j].iter().map(|t| t.as_str()).collect();
        match parse_prefix(&run) {
            Some((value, used)) => {
                let lone_one = used == 1 && run[0] == "one";
                let pronoun = lone_one
                    && (toks.get(i + 1).is_some_and(|t| t.text == "of")
                        || i.checked_sub(1)
                            .is_some_and(|p| DETERMINERS.contains(&toks[p].as_str())));
                let last = &toks[i + used - 1];
                let mut range = toks[i].range.start..last.range.end;
                let mut money = false;
                if let Some(next) = toks.get(i + used) {
                    if is_currency_word(&next.text)
                        && text[last.range.end..next.range.start].trim().is_empty()
                    {
                        money = true;
                        range.end = next.range.end;
                    }
                }
                // "million" alone (as in "$3.5 million") is not a number.
                let bare_scale = scale_of(run[0]).is_some() || run[0] == "hundred";
                if !pronoun && !bare_scale {
                    let v = value as f64;
                    let quantity = if money {
                        Quantity::Money(v)
                    } else {
                        Quantity::Number(v)
                    };
                    out.push(Found { quantity, range });
                }
                i += used;
            }
            None => i += 1,
        }
    }
    out
}

/// The quantities of a text and every numeric value it states.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    /// Dates and times first, then numbers and money that are not part of
    /// them, by position.
    pub found: Vec<Found>,
    /// Every amount stated, the parts of dates included (for evidence: "5
    /// March" supports the number 5).
    pub amounts: Vec<f64>,
}

/// Scans `text` whose words are `toks` (from [`words`]). Texts without an
/// ASCII digit skip the digit patterns.
pub(crate) fn scan(text: &str, toks: &[Word]) -> Scan {
    let has_digit = text.bytes().any(|b| b.is_ascii_digit());
    let mut found = if has_digit {
        dates_and_times(text)
    } else {
        Vec::new()
    };
    let digits = if has_digit {
        digit_quantities(text)
    } else {
        Vec::new()
    };
    let spelled = word_quantities(text, toks);
    let mut amounts: Vec<f64> = digits
        .iter()
        .chain(&spelled)
        .filter_map(|f| f.quantity.amount())
        .collect();
    let mut taken: Vec<Range<usize>> = found.iter().map(|f| f.range.clone()).collect();
    for f in digits.into_iter().chain(spelled) {
        if !overlaps(&taken, &f.range) {
            taken.push(f.range.clone());
            found.push(f);
        }
    }
    found.sort_by_key(|f| f.range.start);
    amounts.sort_by(f64::total_cmp);
    amounts.dedup();
    Scan { found, amounts }
}

/// Every quantity of `text` (see [`Scan::found`]).
#[cfg(test)]
pub(crate) fn quantities(text: &str) -> Vec<Found> {
    scan(text, &super::text::words(text)).found
}

/// True when two amounts are the same value.
pub(crate) fn same_amount(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(String, &str, String)> {
        quantities(text)
            .into_iter()
            .map(|f| {
                (
                    f.quantity.kind().to_string(),
                    &text[f.range.clone()],
                    f.quantity.value_text(),
                )
            })
            .collect()
    }

    #[test]
    fn numbers_in_any_written_form() {
        let f = found("Five cats, 1,000 dogs, 5.0 mice and twenty-one birds; 15% off.");
        let vals: Vec<(&str, &str)> = f.iter().map(|(k, _, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            vals,
            [
                ("number", "5"),
                ("number", "1000"),
                ("number", "5"),
                ("number", "21"),
                ("number", "15")
            ]
        );
        let f = found("It cost $3.5 million, or two million dollars, or 20 euros.");
        let vals: Vec<(&str, &str)> = f.iter().map(|(k, _, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            vals,
            [("money", "3500000"), ("money", "2000000"), ("money", "20")]
        );
        assert_eq!(found("one of them is the one").len(), 0);
        assert_eq!(found("one hundred and two")[0].2, "102");
        // Units glued to the digits: "42km", "5kg".
        assert_eq!(found("a 42km run")[0].2, "42");
    }

    #[test]
    fn dates_in_common_formats() {
        for text in [
            "on March 3, 2021.",
            "on 2021-03-03.",
            "on 3 March 2021",
            "on 03/03/2021",
            "on the 3rd of March, 2021",
        ] {
            let f = found(text);
            assert_eq!(f.len(), 1, "{text}: {f:?}");
            assert_eq!(
                (f[0].0.as_str(), f[0].2.as_str()),
                ("date", "2021-03-03"),
                "{text}"
            );
        }
        let f = found("It opened in 1987 with 40 staff.");
        assert_eq!(f[0], ("date".to_string(), "1987", "1987".to_string()));
        assert_eq!(f[1].2, "40");
        assert_eq!(found("March 2021")[0].2, "2021-03");
        assert_eq!(found("by May 5")[0].2, "--05-05");
        // Dates that do not exist are not dates.
        assert!(found("on February 30, 2021").iter().all(|f| f.0 != "date"));
        assert_eq!(found("on February 29, 2024")[0].2, "2024-02-29");
        assert!(found("on February 29, 2023").iter().all(|f| f.0 != "date"));
        let times: Vec<String> = found("at 5 pm, 10:30 am and 17:45")
            .into_iter()
            .map(|f| f.2)
            .collect();
        assert_eq!(times, ["17:00", "10:30", "17:45"]);
    }

    #[test]
    fn date_support_is_partial_order() {
        let y = Date {
            year: Some(1987),
            month: None,
            day: None,
        };
        let full = Date {
            year: Some(1987),
            month: Some(3),
            day: Some(3),
        };
        assert!(y.is_supported_by(&full));
        assert!(!full.is_supported_by(&y));
        assert!(same_amount(5.0, 5.0000000000001));
        assert!(!same_amount(5.0, 5.1));
    }
}
