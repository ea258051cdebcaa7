//! Self-contained HTML reports: one file, styles inline, charts embedded
//! as `data:` URIs, no script or font fetched from anywhere.
//!
//! A small inline script records, once the page has loaded, how many of
//! its images decoded (`<body data-images-loaded="2/2">`), so a headless
//! browser can check the page without a screenshot.
//!
//! ```
//! use corpus_eval::views::HtmlPage;
//! let mut page = HtmlPage::new("Report");
//! page.heading(2, "Results");
//! page.table("results", &["metric".into(), "value".into()], &[vec!["f1".into(), "0.5".into()]]);
//! let html = page.render();
//! assert!(html.contains("<table id=\"results\">") && html.contains("<td>0.5</td>"));
//! ```

/// Escapes text for HTML element content and attribute values.
pub use crate::text::escape_markup as escape;

/// Standard base64 (RFC 4648, with padding), through the `base64` crate.
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// An HTML page being assembled, section by section.
#[derive(Debug, Clone)]
pub struct HtmlPage {
    title: String,
    body: String,
    style: String,
    script: String,
}

impl HtmlPage {
    /// A page with a title (also its `<h1>`).
    pub fn new(title: &str) -> HtmlPage {
        HtmlPage {
            title: title.to_string(),
            body: format!("<h1>{}</h1>\n", escape(title)),
            style: String::new(),
            script: String::new(),
        }
    }

    /// A heading (`level` 2..6).
    pub fn heading(&mut self, level: u8, text: &str) {
        let l = level.clamp(2, 6);
        self.body
            .push_str(&format!("<h{l}>{}</h{l}>\n", escape(text)));
    }

    /// A paragraph of plain text.
    pub fn paragraph(&mut self, text: &str) {
        self.body.push_str(&format!("<p>{}</p>\n", escape(text)));
    }

    /// A paragraph in the muted note style.
    pub fn note(&mut self, text: &str) {
        self.body
            .push_str(&format!("<p class=\"note\">{}</p>\n", escape(text)));
    }

    /// A list of `term: explanation` items.
    pub fn definitions(&mut self, items: &[(&str, &str)]) {
        self.body.push_str("<ul>\n");
        for (term, text) in items {
            self.body.push_str(&format!(
                "<li><strong>{}:</strong> {}</li>\n",
                escape(term),
                escape(text)
            ));
        }
        self.body.push_str("</ul>\n");
    }

    /// A table; cells that do not look numeric are left-aligned.
    pub fn table(&mut self, id: &str, headers: &[String], rows: &[Vec<String>]) {
        self.body.push_str(&format!(
            "<div class=\"table-wrap\"><table id=\"{}\">\n<thead><tr>",
            escape(id)
        ));
        for h in headers {
            self.body.push_str(&format!("<th>{}</th>", escape(h)));
        }
        self.body.push_str("</tr></thead>\n<tbody>\n");
        for row in rows {
            self.body.push_str("<tr>");
            for cell in row {
                let numeric = cell.parse::<f64>().is_ok() || cell == "n/a";
                if numeric {
                    self.body.push_str(&format!("<td>{}</td>", escape(cell)));
                } else {
                    self.body
                        .push_str(&format!("<td class=\"text\">{}</td>", escape(cell)));
                }
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody>\n</table></div>\n");
    }

    /// An embedded PNG image.
    pub fn png(&mut self, alt: &str, bytes: &[u8]) {
        self.body.push_str(&format!(
            "<p><img alt=\"{}\" src=\"data:image/png;base64,{}\"></p>\n",
            escape(alt),
            base64(bytes)
        ));
    }

    /// Markup added as it is (the caller escapes what it holds).
    pub fn raw(&mut self, html: &str) {
        self.body.push_str(html);
    }

    /// Preformatted text (e.g. a manifest).
    pub fn preformatted(&mut self, text: &str) {
        self.body
            .push_str(&format!("<pre>{}</pre>\n", escape(text)));
    }

    /// More CSS for this page.
    pub fn style(&mut self, css: &str) {
        self.style.push_str(css);
    }

    /// More inline script for this page (run after the body).
    pub fn script(&mut self, js: &str) {
        self.script.push_str(js);
    }

    /// The whole document.
    pub fn render(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{}{}</style>\n</head>\n<body>\n<div class=\"container\">\n{}</div>\n\
             <script>{}{}</script>\n</body>\n</html>\n",
            escape(&self.title),
            *super::assets::PAGE_CSS,
            self.style,
            self.body,
            super::assets::IMAGE_CHECK_JS,
            self.script
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known_values() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    #[test]
    fn escapes_markup() {
        let mut p = HtmlPage::new("a<b>");
        p.paragraph("x & \"y\"");
        let html = p.render();
        assert!(html.contains("<title>a&lt;b&gt;</title>"));
        assert!(html.contains("<p>x &amp; &quot;y&quot;</p>"));
    }
}
