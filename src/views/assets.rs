//! The report pages' styles and scripts: real files under
//! `src/views/assets/`, included at build time (a page is still one
//! self-contained file). A style sheet is written a rule per line and
//! sent with its line ends dropped (the pages carry their styles
//! minified); a script is sent as written.

use std::sync::LazyLock;

/// A style sheet's rules, one per line, joined without line ends.
fn joined(sheet: &str) -> String {
    sheet.lines().collect()
}

/// The styles every [`super::html::HtmlPage`] starts with.
pub(crate) static PAGE_CSS: LazyLock<String> =
    LazyLock::new(|| joined(include_str!("assets/page.css")));

/// The script every [`super::html::HtmlPage`] ends with: it counts the
/// images that loaded (`data-images-loaded` on the body).
pub(crate) const IMAGE_CHECK_JS: &str = include_str!("assets/image-check.js");

/// The quote audit's (evaluate's `report.html`) styles.
pub(crate) static AUDIT_CSS: LazyLock<String> =
    LazyLock::new(|| joined(include_str!("assets/audit.css")));

/// The quote audit's script: filters, search and pages of cards drawn
/// from the page's JSON (`P=50` quotes a page, replaced by the view).
pub(crate) const AUDIT_JS: &str = include_str!("assets/audit.js");

/// check-report's `report.html` styles.
pub(crate) static CHECK_REPORT_CSS: LazyLock<String> =
    LazyLock::new(|| joined(include_str!("assets/check-report.css")));

/// check-report's script: the filter by class and the cards a click on a
/// quote opens.
pub(crate) const CHECK_REPORT_JS: &str = include_str!("assets/check-report.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_sheets_are_sent_without_line_ends() {
        for sheet in [&*PAGE_CSS, &*AUDIT_CSS, &*CHECK_REPORT_CSS] {
            assert!(!sheet.is_empty());
            assert!(!sheet.contains('\n') && !sheet.contains('\r'));
            // Every rule closed: as many braces open as shut.
            assert_eq!(sheet.matches('{').count(), sheet.matches('}').count());
        }
        assert!(
            AUDIT_JS.contains("P=50"),
            "the view sets the page size there"
        );
    }
}
