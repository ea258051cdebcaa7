//! Builds the compact lexicon from a WordNet dict folder in the standard
//! format (`data.*`, `index.*`, `*.exc`, as Debian's `wordnet-base`
//! installs under `/usr/share/wordnet`).
//!
//! The compact format is plain UTF-8 text, gzipped when shipped:
//!
//! ```text
//! corpus-eval-lexicon 1
//! source\t<description of the dict folder>
//! synsets\t<N>
//! <pos>\t<lemma>\t<lemma>...            one line per synset, in data-file order
//! lemmas\t<M>
//! <lemma>\t<pos mask>\t<synset id> ...  sorted; ids in WordNet's sense order
//! exceptions\t<K>
//! <pos>\t<inflected>\t<base>\t<base>... from the *.exc files
//! antonyms\t<A>                       (optional: older files end above)
//! <lemma>\t<lemma>                     each pair once, the smaller first, sorted
//! ```
//!
//! The antonyms are WordNet's lexical antonym pointers (`!`) of every
//! sense; a pointer to a synset the folder lacks is left out.
//!
//! Lemmas are lower-cased with underscores turned into spaces and the
//! adjective position markers "(a)", "(p)", "(ip)" removed. The pos mask has
//! bit 0 for nouns, 1 for verbs, 2 for adjectives (satellites included) and
//! 3 for adverbs.

use super::LexiconError;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

/// The four WordNet parts of speech: file suffix, pos letter.
pub const POS_FILES: [(&str, char); 4] = [("noun", 'n'), ("verb", 'v'), ("adj", 'a'), ("adv", 'r')];

/// The bit of a pos letter in a pos mask.
pub fn pos_bit(pos: char) -> u8 {
    match pos {
        'n' => 1,
        'v' => 2,
        'a' | 's' => 4,
        'r' => 8,
        _ => 0,
    }
}

/// Turns a WordNet word form into a lexicon key: lower case, spaces for
/// underscores, adjective markers removed.
pub fn clean_lemma(word: &str) -> String {
    let w = word
        .strip_suffix("(ip)")
        .or_else(|| word.strip_suffix("(a)"))
        .or_else(|| word.strip_suffix("(p)"))
        .unwrap_or(word);
    w.replace('_', " ").to_lowercase()
}

fn read(dir: &Path, name: &str) -> Result<String, LexiconError> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|source| LexiconError::Io {
        path: path.clone(),
        source,
    })?;
    // WordNet 3.0 files are ASCII; tolerate stray Latin-1 bytes.
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
    })
}

fn bad(dir: &Path, file: &str, line: usize, what: &str) -> LexiconError {
    LexiconError::Format {
        path: dir.join(file),
        line,
        message: what.to_string(),
    }
}

/// Reads a WordNet dict folder and returns the compact lexicon text.
pub fn build_compact(dir: &Path) -> Result<String, LexiconError> {
    // Synsets, keyed by (pos file letter, byte offset).
    let mut synset_lines: Vec<(char, Vec<String>)> = Vec::new();
    let mut synset_ids: HashMap<(char, u64), u32> = HashMap::new();
    // Each synset's words as numbered in its line (1-based in pointers),
    // and the antonym pointers met: (word, target pos file, offset, word no).
    let mut numbered: Vec<Vec<String>> = Vec::new();
    let mut antonym_pointers: Vec<(String, char, u64, usize)> = Vec::new();
    for (suffix, pos) in POS_FILES {
        let file = format!("data.{suffix}");
        let text = read(dir, &file)?;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with(' ') || line.trim().is_empty() {
                continue;
            }
            let mut f = line.split(' ');
            let offset: u64 = f
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| bad(dir, &file, n + 1, "synset offset is not a number"))?;
            let _lex_filenum = f.next();
            let ss_type = f
                .next()
                .and_then(|s| s.chars().next())
                .ok_or_else(|| bad(dir, &file, n + 1, "missing synset type"))?;
            let count = f
                .next()
                .and_then(|s| usize::from_str_radix(s, 16).ok())
                .ok_or_else(|| bad(dir, &file, n + 1, "word count is not hexadecimal"))?;
            // WordNet's w_cnt is two hex digits; and no line holds more
            // words than it has fields (a huge count must not allocate).
            if count > 0xff || count > line.len() {
                return Err(bad(dir, &file, n + 1, "word count exceeds the line"));
            }
            let mut words = Vec::with_capacity(count);
            let mut all = Vec::with_capacity(count);
            for _ in 0..count {
                let w = f
                    .next()
                    .ok_or_else(|| bad(dir, &file, n + 1, "fewer words than announced"))?;
                let _lex_id = f.next();
                let w = clean_lemma(w);
                all.push(w.clone());
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            // Pointers: `symbol offset pos source/target`, p_cnt of them.
            let pointers: usize = f.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            for _ in 0..pointers.min(line.len()) {
                let (Some(symbol), Some(off), Some(p), Some(st)) =
                    (f.next(), f.next(), f.next(), f.next())
                else {
                    break;
                };
                if symbol != "!" {
                    continue;
                }
                let (Ok(off), Some(p), Ok(st)) = (
                    off.parse::<u64>(),
                    p.chars().next(),
                    u16::from_str_radix(st, 16),
                ) else {
                    continue;
                };
                let (source, target) = (usize::from(st >> 8), usize::from(st & 0xff));
                if let Some(w) = source.checked_sub(1).and_then(|i| all.get(i)) {
                    let file_pos = if p == 's' { 'a' } else { p };
                    antonym_pointers.push((w.clone(), file_pos, off, target));
                }
            }
            synset_ids.insert((pos, offset), synset_lines.len() as u32);
            synset_lines.push((ss_type, words));
            numbered.push(all);
        }
    }

    // Lemmas from the index files, synsets in sense order.
    let mut lemmas: BTreeMap<String, (u8, Vec<u32>)> = BTreeMap::new();
    for (suffix, pos) in POS_FILES {
        let file = format!("index.{suffix}");
        let text = read(dir, &file)?;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with(' ') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            let parse = |i: usize| -> Result<usize, LexiconError> {
                f.get(i)
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| bad(dir, &file, n + 1, "malformed index line"))
            };
            let synset_cnt = parse(2)?;
            let p_cnt = parse(3)?;
            // Both counts are bounded by the fields the line holds.
            let first = p_cnt
                .checked_add(6)
                .filter(|&first| first <= f.len() && synset_cnt <= f.len() - first)
                .ok_or_else(|| bad(dir, &file, n + 1, "counts exceed the line"))?;
            let entry = lemmas.entry(clean_lemma(f[0])).or_insert((0, Vec::new()));
            entry.0 |= pos_bit(pos);
            for k in 0..synset_cnt {
                let off: u64 = f
                    .get(first + k)
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| bad(dir, &file, n + 1, "missing synset offset"))?;
                let id = synset_ids.get(&(pos, off)).ok_or_else(|| {
                    bad(
                        dir,
                        &file,
                        n + 1,
                        &format!("offset {off} not in data.{suffix}"),
                    )
                })?;
                if !entry.1.contains(id) {
                    entry.1.push(*id);
                }
            }
        }
    }

    let mut exceptions: Vec<(char, String, Vec<String>)> = Vec::new();
    for (suffix, pos) in POS_FILES {
        let file = format!("{suffix}.exc");
        let text = read(dir, &file)?;
        for line in text.lines() {
            let mut f = line.split_whitespace();
            let Some(inflected) = f.next() else { continue };
            let bases: Vec<String> = f.map(clean_lemma).collect();
            if !bases.is_empty() {
                exceptions.push((pos, clean_lemma(inflected), bases));
            }
        }
    }

    let mut out = String::with_capacity(8 << 20);
    out.push_str("corpus-eval-lexicon 1\n");
    let _ = writeln!(out, "source\t{}", describe_source(dir));
    let _ = writeln!(out, "synsets\t{}", synset_lines.len());
    for (pos, words) in &synset_lines {
        out.push(*pos);
        for w in words {
            out.push('\t');
            out.push_str(w);
        }
        out.push('\n');
    }
    let _ = writeln!(out, "lemmas\t{}", lemmas.len());
    for (lemma, (mask, ids)) in &lemmas {
        let _ = write!(out, "{lemma}\t{mask}\t");
        for (i, id) in ids.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let _ = write!(out, "{id}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "exceptions\t{}", exceptions.len());
    for (pos, inflected, bases) in &exceptions {
        let _ = write!(out, "{pos}\t{inflected}");
        for b in bases {
            out.push('\t');
            out.push_str(b);
        }
        out.push('\n');
    }
    let mut antonyms: Vec<(String, String)> = antonym_pointers
        .into_iter()
        .filter_map(|(word, pos, off, target)| {
            let id = *synset_ids.get(&(pos, off))?;
            let other = numbered.get(id as usize)?.get(target.checked_sub(1)?)?;
            (*other != word).then(|| {
                if word < *other {
                    (word, other.clone())
                } else {
                    (other.clone(), word)
                }
            })
        })
        .collect();
    antonyms.sort();
    antonyms.dedup();
    let _ = writeln!(out, "antonyms\t{}", antonyms.len());
    for (a, b) in &antonyms {
        let _ = writeln!(out, "{a}\t{b}");
    }
    Ok(out)
}

/// A description of the dict folder: the WordNet version named in its
/// license header, when there is one.
fn describe_source(dir: &Path) -> String {
    let version = read(dir, "data.noun")
        .ok()
        .and_then(|t| {
            t.lines()
                .take(40)
                .find_map(|l| {
                    l.split("WordNet ")
                        .nth(1)
                        .map(|v| v.split_whitespace().next().map(str::to_string))
                })
                .flatten()
        })
        .map(|v| {
            v.trim_end_matches(|c: char| !c.is_ascii_digit())
                .to_string()
        })
        .unwrap_or_else(|| "unknown version".to_string());
    format!("WordNet {version} dict files (data.*, index.*, *.exc)")
}
