//! Several results on one page: each part under its own heading, a list of the parts
//! at the top linking to them (the page `verdict demo` writes).

use std::fmt::Write;

use html_escape::{encode_double_quoted_attribute as attribute, encode_text as text};

use crate::html::page;

/// One part of a combined page.
#[derive(Debug, Clone, PartialEq)]
pub struct PagePart {
    /// The heading.
    pub title: String,
    /// The anchor the contents link to (letters, digits and `-`).
    pub anchor: String,
    /// A sentence or two saying what the part shows.
    pub intro: String,
    /// The sections (as the `*_sections` functions return them).
    pub body: String,
}

/// The parts as one self-contained page titled `title`, `intro` first.
pub fn combined_html(title: &str, intro: &str, parts: &[PagePart]) -> String {
    let mut body = format!("<p>{}</p><nav><ol>", text(intro));
    for part in parts {
        let _ = write!(
            body,
            "<li><a href=\"#{}\">{}</a></li>",
            attribute(&part.anchor),
            text(&part.title)
        );
    }
    body.push_str("</ol></nav>");
    for part in parts {
        let _ = write!(
            body,
            "<article class=\"part\" id=\"{}\"><h2>{}</h2><p>{}</p>{}</article>",
            attribute(&part.anchor),
            text(&part.title),
            text(&part.intro),
            part.body
        );
    }
    page(title, &body)
}
