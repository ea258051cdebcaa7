//! A large top-level JSON array parsed in parallel pieces.
//!
//! The array is cut at guessed element boundaries (a `}` `,` `{` sequence
//! found after evenly spaced offsets), each piece's elements are
//! deserialized on its own rayon task with the same `Deserialize` impl a
//! whole-array parse uses, and the pieces are then stitched together from
//! the array's real first element: a piece is taken only when the parse
//! stands exactly on its first byte, after a comma (so, by induction,
//! every piece taken starts on a real element). A guess that was wrong (a
//! `}, {` inside a string or a nested array) costs only its stretch, which
//! is parsed again in place. Any error, or an input too small to be worth
//! it, returns `None`, and the caller parses the whole document
//! sequentially, which gives the same values or the same error message
//! with its line:column.
//!
//! One difference is known and harmless: each piece's deserializer counts
//! nesting from its element, one level less than inside the array, so a
//! value nested exactly 127 levels deep parses here where a whole-array
//! parse says "recursion limit exceeded" (callers reject such values as a
//! type error anyway).
//!
//! Example: the unit test `the_module_example_parses_an_array_in_pieces`.

use super::skim::{is_ws, skip_ws};
use rayon::prelude::*;
use serde::de::DeserializeOwned;

/// The elements of the JSON array `bytes` (surrounding whitespace allowed;
/// no byte-order mark), parsed in parallel pieces of at least `min_piece`
/// bytes, or `None` when the input is small, not an array of objects, or
/// anything is off (then parse it whole: same values, or the error).
#[cfg(test)]
pub(crate) fn parse_array<T: DeserializeOwned + Send>(
    bytes: &[u8],
    min_piece: usize,
) -> Option<Vec<T>> {
    parse_array_with(bytes, min_piece, &serde_element::<T>)
}

/// One element deserialized by serde_json from the start of `bytes`
/// (whitespace before it allowed), and the bytes it took.
pub(crate) fn serde_element<T: DeserializeOwned>(bytes: &[u8]) -> Option<(T, usize)> {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<T>();
    let value = stream.next()?.ok()?;
    Some((value, stream.byte_offset()))
}

/// Reads one element from the start of the bytes it is given: the element
/// and the bytes it took, or None (see [`parse_array_with`]).
pub(crate) type ElementReader<'a, T> = dyn Fn(&[u8]) -> Option<(T, usize)> + Sync + 'a;

/// [`parse_array`] with each element read by `element`: from the start of
/// the bytes it is given (at an element, possibly after whitespace), the
/// element and the bytes it took, or None when they are not one valid
/// element. It must give what [`serde_element`] gives, or None.
pub(crate) fn parse_array_with<T: Send>(
    bytes: &[u8],
    min_piece: usize,
    element: &ElementReader<'_, T>,
) -> Option<Vec<T>> {
    let threads = rayon::current_num_threads();
    let min_piece = min_piece.max(1);
    if threads < 2 || bytes.len() < 2 * min_piece {
        return None;
    }
    let open = skip_ws(bytes, 0);
    if bytes.get(open) != Some(&b'[') {
        return None;
    }
    let first = skip_ws(bytes, open + 1);
    if bytes.get(first) != Some(&b'{') {
        return None;
    }
    // Several pieces per thread, so hashing or other work on a core evens out.
    let pieces = (bytes.len() / min_piece).clamp(2, threads * 4);
    let mut starts = vec![first];
    for k in 1..pieces {
        let guess = bytes.len() / pieces * k;
        let last = starts[starts.len() - 1];
        if guess <= last {
            continue;
        }
        match next_boundary(bytes, guess) {
            Some(s) if s > last => starts.push(s),
            _ => {}
        }
    }
    if starts.len() < 2 {
        return None;
    }
    let mut parsed: Vec<Option<(Vec<T>, Stop)>> = starts
        .par_iter()
        .enumerate()
        .map(|(k, &s)| parse_piece(bytes, s, starts.get(k + 1).copied(), element))
        .collect();
    // Stitch the pieces from the real first element: a piece whose guessed
    // start is where the parse stands is taken as it is; a gap (a guess
    // inside a value, or past it, or a piece that failed) is parsed in
    // place, on this thread.
    let mut out = Vec::new();
    let mut pos = first;
    loop {
        let k = starts.partition_point(|&s| s < pos);
        let piece = match (starts.get(k), parsed.get_mut(k)) {
            (Some(&s), Some(slot)) if s == pos => slot.take(),
            _ => None,
        };
        let (items, stop) = match piece {
            Some(p) => p,
            None => parse_piece(bytes, pos, starts.get(k).copied(), element)?,
        };
        out.extend(items);
        match stop {
            Stop::Closed => return Some(out),
            Stop::At(p) => pos = p,
        }
    }
}

/// Where a piece's parse stopped.
enum Stop {
    /// At this element start, at or past the piece's limit.
    At(usize),
    /// At the array's end (and nothing but whitespace after it).
    Closed,
}

/// The elements from `start` (a real or guessed element start) up to the
/// first element start at or past `limit`, or (without a limit, or when
/// the array ends first) to the closing `]` and the end of the input. None
/// on any error.
fn parse_piece<T>(
    bytes: &[u8],
    start: usize,
    limit: Option<usize>,
    element: &ElementReader<'_, T>,
) -> Option<(Vec<T>, Stop)> {
    let mut out = Vec::new();
    let mut pos = start;
    loop {
        let (value, took) = element(&bytes[pos..])?;
        pos += took;
        out.push(value);
        pos = skip_ws(bytes, pos);
        match bytes.get(pos) {
            Some(b',') => {
                pos = skip_ws(bytes, pos + 1);
                if limit.is_some_and(|l| pos >= l) {
                    return Some((out, Stop::At(pos)));
                }
            }
            Some(b']') => {
                return (skip_ws(bytes, pos + 1) == bytes.len()).then_some((out, Stop::Closed));
            }
            _ => return None,
        }
    }
}

/// The first `{` at or after `from` that follows `}`, `,` (whitespace
/// allowed around the comma): a guess at an element start.
fn next_boundary(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(off) = memchr::memchr(b',', &bytes[at..]) {
        let comma = at + off;
        let before = bytes[..comma]
            .iter()
            .rposition(|b| !is_ws(*b))
            .map(|i| bytes[i]);
        let after = skip_ws(bytes, comma + 1);
        if before == Some(b'}') && bytes.get(after) == Some(&b'{') {
            return Some(after);
        }
        at = comma + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_example_parses_an_array_in_pieces() {
        let text: String = format!(
            "[{}]",
            (0..2000)
                .map(|i| format!("{{\"n\": {i}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let parsed: Vec<serde_json::Value> = parse_array(text.as_bytes(), 1024).unwrap();
        assert_eq!(parsed.len(), 2000);
        assert_eq!(parsed[1999]["n"], 1999);
        assert!(parse_array::<serde_json::Value>(b"[1, 2,]", 1).is_none()); // invalid: the caller's parse says why
    }

    use super::*;
    use serde_json::Value;

    fn doc(n: usize) -> String {
        let items: Vec<String> = (0..n)
            .map(|i| {
                // Now and then a string that looks like a boundary.
                let fake = if i % 97 == 0 { "a }, { b" } else { "a b" };
                format!(
                    "{{\"id\": {i}, \"text\": \"{fake}, {}\", \"list\": [{{\"x\": 1}}, {{\"y\": [2]}}]}}",
                    "w".repeat(i % 7)
                )
            })
            .collect();
        format!("\n[\n  {}\n]\n", items.join(",\n  "))
    }

    #[test]
    fn equals_the_whole_parse_at_every_piece_size() {
        let text = doc(3000);
        let whole: Vec<Value> = serde_json::from_str(&text).unwrap();
        let mut in_pieces = 0;
        for min_piece in [16, 100, 1000, 7777, 50_000] {
            if let Some(v) = parse_array::<Value>(text.as_bytes(), min_piece) {
                assert_eq!(v, whole, "piece {min_piece}");
                in_pieces += 1;
            }
        }
        // Some sizes take the parallel path (with threads to run it).
        assert!(in_pieces > 0 || rayon::current_num_threads() < 2);
        assert!(parse_array::<Value>(text.as_bytes(), text.len()).is_none());
    }

    #[test]
    fn guesses_inside_strings_are_parsed_again_not_trusted() {
        // Every element's string holds a fake boundary "}, {" and the
        // elements are far longer than a piece: most guesses land inside a
        // string; the result must still equal the whole parse.
        let items: Vec<String> = (0..50)
            .map(|i| format!("{{\"k\": \"{}\"}}", "x}, {\\\"k\\\": 1}, {".repeat(40 + i)))
            .collect();
        let text = format!("[{}]", items.join(","));
        let whole: Vec<Value> = serde_json::from_str(&text).unwrap();
        for min_piece in [8, 64, 512] {
            match parse_array::<Value>(text.as_bytes(), min_piece) {
                Some(v) => assert_eq!(v, whole),
                // A valid document is always parsed: wrong guesses are
                // parsed again in place.
                None => assert!(rayon::current_num_threads() < 2),
            }
        }
    }

    #[test]
    fn invalid_or_other_shapes_are_left_to_the_whole_parse() {
        let good = doc(200);
        for bad in [
            good.replacen("\"id\": 150", "\"id\": 150,", 1), // syntax error late
            good.replacen("\"id\": 3", "\"id\": 3,", 1),     // syntax error early
            format!("{good} x"),                             // trailing text
            good.replace("\n]\n", ",\n]\n"),                 // trailing comma
            good.replacen('[', "{\"a\": [", 1),              // not an array
        ] {
            assert!(parse_array::<Value>(bad.as_bytes(), 64).is_none());
        }
        assert!(parse_array::<Value>(b"[1, 2, 3]", 1).is_none());
        assert!(parse_array::<Value>(b"[]", 1).is_none());
    }
}
