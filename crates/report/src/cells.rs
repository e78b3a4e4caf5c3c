//! What a cell a user's data filled may show: model names, item ids and context ids
//! come from files verdict did not write, so they are made safe for where they go.
//!
//! - A terminal: control characters (ESC sequences, newlines, C1 codes) and the
//!   Unicode bidirectional controls (which can reorder what a table appears to say)
//!   are shown escaped (`\u{1b}`), never sent raw.
//! - A spreadsheet (the CSV reports of `rank`, `judge` and `predict`): a text cell
//!   that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to
//!   Excel, LibreOffice and Google Sheets; such a cell is written with a leading `'`
//!   (OWASP's CSV-injection advice). Numbers (`-0.5`) are written as they are. Files
//!   meant to be read back as data — battle logs and counts tables — keep names
//!   verbatim.

/// Whether `c` is shown escaped on a terminal: a control character or a Unicode
/// bidirectional control (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069).
fn unsafe_on_a_terminal(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` as a terminal may show it: each unsafe character as `\u{…}`.
pub fn terminal_safe(text: &str) -> String {
    if !text.chars().any(unsafe_on_a_terminal) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if unsafe_on_a_terminal(c) {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `text` as a spreadsheet may open it: a text cell that would be read as a formula
/// gets a leading `'`.
pub fn spreadsheet_safe(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if formula && text.parse::<f64>().is_err() {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidirectional_characters_are_escaped() {
        assert_eq!(terminal_safe("gpt-4"), "gpt-4");
        assert_eq!(terminal_safe("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert_eq!(terminal_safe("x\ny"), "x\\u{a}y");
        assert_eq!(terminal_safe("evil\u{202E}txt"), "evil\\u{202e}txt");
    }

    #[test]
    fn formulas_are_quoted_and_numbers_kept() {
        assert_eq!(spreadsheet_safe("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(spreadsheet_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(spreadsheet_safe("+1+cmd"), "'+1+cmd");
        assert_eq!(spreadsheet_safe("-0.5"), "-0.5");
        assert_eq!(spreadsheet_safe("model-a"), "model-a");
    }
}
