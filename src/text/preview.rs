//! Input values as messages echo them: cut to a bounded length (a 50 MB
//! field must not make a 50 MB message), numbers in a short form. The
//! base layer's, so that every layer names them from one place.

/// Longest echo of an input value in a message, in characters.
pub const PREVIEW_CHARS: usize = 200;

/// An input value as an error message echoes it: formatted with `{:?}`
/// (Debug) or `{}` (Display), cut at [`PREVIEW_CHARS`] characters with an
/// ellipsis and the whole length (a 50 MB field must not make a 50 MB
/// message).
#[derive(Clone, Copy)]
pub struct Preview<'a, T: ?Sized>(pub &'a T);

fn cut(full: String) -> String {
    match full.char_indices().nth(PREVIEW_CHARS) {
        None => full,
        Some((at, _)) => format!("{}… ({} chars)", &full[..at], full.chars().count()),
    }
}

impl<T: std::fmt::Debug + ?Sized> std::fmt::Debug for Preview<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&cut(format!("{:?}", self.0)))
    }
}

impl<T: std::fmt::Display + ?Sized> std::fmt::Display for Preview<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&cut(self.0.to_string()))
    }
}

/// A message with every long stretch cut: a stretch between quotes or
/// backticks (or, without them, between spaces) longer than
/// [`PREVIEW_CHARS`] keeps its first [`PREVIEW_CHARS`] characters and
/// gains `… (N chars)`; the whole message is then at most 8 times that.
/// The one safety net for messages that echo input (a 10 MB enum value, a
/// 300 KB regex, a whole CSV header), applied where errors are printed.
pub fn bound_message(message: &str) -> std::borrow::Cow<'_, str> {
    let limit = PREVIEW_CHARS;
    if message.len() <= limit {
        return std::borrow::Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len().min(16 * limit));
    let mut run = String::new();
    // A stretch already cut by a preview (its text and `…`) is left as it
    // is: cut once, said once.
    let flush = |run: &mut String, out: &mut String| {
        let stretch = std::mem::take(run);
        if stretch.ends_with('…') && stretch.chars().count() <= limit + 1 {
            out.push_str(&stretch);
        } else {
            out.push_str(&cut(stretch));
        }
    };
    for c in message.chars() {
        if matches!(
            c,
            '"' | '`' | '\'' | ' ' | '\n' | ',' | '(' | ')' | '[' | ']'
        ) {
            flush(&mut run, &mut out);
            out.push(c);
        } else {
            run.push(c);
        }
    }
    flush(&mut run, &mut out);
    let total = out.chars().count();
    if total > 8 * limit {
        let at = out
            .char_indices()
            .nth(8 * limit)
            .map_or(out.len(), |(i, _)| i);
        out.truncate(at);
        out.push_str(&format!("… ({total} chars)"));
    }
    std::borrow::Cow::Owned(out)
}

/// A number as an error message shows it: plain when short, in
/// scientific notation when its plain form is long (`1e308`, not 309
/// digits).
pub fn number_preview(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() <= 24 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// [`Preview`] of a value's Debug form, as a string.
pub fn preview<T: std::fmt::Debug + ?Sized>(v: &T) -> String {
    format!("{:?}", Preview(v))
}

/// [`Preview`] of a JSON value as written (strings quoted), as a string.
pub fn preview_value(v: &serde_json::Value) -> String {
    Preview(v).to_string()
}
