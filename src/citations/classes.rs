//! The class lists of a quote check: each list ([`Verdict`],
//! [`Attribution`], [`Difference`], [`MeaningClass`]) holds every class once, in the order
//! outputs list them, with its name in outputs and what it means. The
//! views, the report pages' styles, check-report's `--fail-on` help and
//! the Python package are checked against these lists by the test suite
//! (a class a view names that a list lacks, or one a view omits, fails
//! it).

use super::attribution::Attribution;
use super::differences::Difference;
use super::meaning::MeaningClass;
use super::Verdict;

/// A closed list of output classes.
pub trait ClassList: Copy + PartialEq + 'static {
    /// What the list classifies, for messages (`verdict`).
    const KIND: &'static str;
    /// Every class, in the order outputs list them.
    const ALL: &'static [Self];
    /// The class's name in outputs (its serde name).
    fn name(self) -> &'static str;
    /// What the class means, in one sentence.
    fn description(self) -> &'static str;
    /// The class of a name, if there is one.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name)
    }
}

impl ClassList for Verdict {
    const KIND: &'static str = "verdict";
    const ALL: &'static [Verdict] = &Verdict::ALL;
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn description(self) -> &'static str {
        match self {
            Verdict::Exact => "found as written",
            Verdict::Normalized => "found once case, whitespace, punctuation, typography, diacritics and fillers are set aside",
            Verdict::Edited => "found as an edited quote: its segments between ellipses stand in order",
            Verdict::Fuzzy => "an approximate passage reaches the similarity threshold",
            Verdict::NotFound => "not in the cited transcript",
            Verdict::UnknownSource => "the source names no transcript of the corpus",
        }
    }
}

impl ClassList for Attribution {
    const KIND: &'static str = "attribution";
    const ALL: &'static [Attribution] = &Attribution::ALL;
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn description(self) -> &'static str {
        match self {
            Attribution::CrossTurn => "found, and the span covers two or more turns",
            Attribution::UncertainSpeaker => "found in a turn whose speaker is in doubt",
            Attribution::Interviewer => "found in an interviewer's turn",
            Attribution::WrongSpeaker => "found in the turn of another speaker than the one named",
            Attribution::WrongLocation => {
                "found in the turn of the speaker named, but not at the time or lines cited"
            }
            Attribution::Ok => "found in one turn of the speaker named (or of any interviewee)",
            Attribution::OtherSource => "not in the cited transcript, but in another one",
            Attribution::Altered => "a passage of the cited transcript reaches the fuzzy threshold (or, for six words or more, the lossless floor) but not the match level, or the match changes what was said",
            Attribution::Paraphrase => {
                "not found, but a turn of the cited transcript says the same in other words (--paraphrase)"
            }
            Attribution::Stitched => "not found whole; pieces of it stand apart in the cited transcript",
            Attribution::Fabricated => "no passage of the corpus holds it",
        }
    }
}

impl ClassList for Difference {
    const KIND: &'static str = "difference";
    const ALL: &'static [Difference] = &[
        Difference::Case,
        Difference::Whitespace,
        Difference::Punctuation,
        Difference::Typography,
        Difference::Diacritics,
        Difference::Fillers,
        Difference::Elision,
        Difference::Insertion,
        Difference::Sic,
    ];
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn description(self) -> &'static str {
        match self {
            Difference::Case => "upper and lower case",
            Difference::Whitespace => "runs of whitespace, line breaks",
            Difference::Punctuation => "punctuation marks added, dropped or changed",
            Difference::Typography => "typographic forms: curly and straight quotes, dashes, ligatures, compatibility forms",
            Difference::Diacritics => "accents and other combining marks",
            Difference::Fillers => "filler words (um, uh, ...)",
            Difference::Elision => "words omitted at an ellipsis",
            Difference::Insertion => "a bracketed insertion standing for source words",
            Difference::Sic => "a [sic] dropped",
        }
    }
}

impl ClassList for MeaningClass {
    const KIND: &'static str = "meaning";
    const ALL: &'static [MeaningClass] = &MeaningClass::ALL;
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn description(self) -> &'static str {
        match self {
            MeaningClass::Negation => "a negator on one side and not the other",
            MeaningClass::Number => "a number differs",
            MeaningClass::Quantifier => {
                "a word of quantity or frequency added, dropped or replaced"
            }
            MeaningClass::Hedge => "a hedge added or dropped",
            MeaningClass::Person => "a pronoun of another person or number",
            MeaningClass::Antonym => "a word replaced by its antonym in WordNet",
        }
    }
}

impl Attribution {
    /// True for the classes of a quote not found in its cited transcript
    /// at the match level (another partition of a corpus may hold it).
    pub fn is_missing(self) -> bool {
        matches!(
            self,
            Attribution::OtherSource
                | Attribution::Altered
                | Attribution::Stitched
                | Attribution::Paraphrase
                | Attribution::Fabricated
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each list: every class once, each name its serde name, and the
    /// names found back.
    fn check<C: ClassList + serde::Serialize + std::fmt::Debug>() {
        let mut seen: Vec<&str> = Vec::new();
        for &c in C::ALL {
            let name = c.name();
            assert_eq!(
                serde_json::to_value(c).unwrap(),
                serde_json::Value::String(name.to_string()),
                "{} {c:?}",
                C::KIND
            );
            assert!(!seen.contains(&name), "{} {name} twice", C::KIND);
            assert!(!c.description().is_empty());
            assert_eq!(C::from_name(name), Some(c));
            seen.push(name);
        }
        assert_eq!(C::from_name("no such class"), None);
    }

    #[test]
    fn every_list_names_each_class_once_by_its_serde_name() {
        check::<Verdict>();
        check::<Attribution>();
        check::<Difference>();
    }

    #[test]
    fn the_lists_follow_the_enums_order() {
        // Attribution's order is its precedence (the first that applies
        // wins), declared so; a verdict's, its strength.
        assert!(<Attribution as ClassList>::ALL
            .windows(2)
            .all(|w| w[0] < w[1]));
        assert!(<Verdict as ClassList>::ALL.windows(2).all(|w| w[0] < w[1]));
        assert!(<Difference as ClassList>::ALL
            .windows(2)
            .all(|w| w[0] < w[1]));
    }
}
