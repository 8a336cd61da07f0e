//! Validation of the text people type: display names, room names and chat lines.
//!
//! Lengths count what a person sees, grapheme clusters (`é` written as `e` and a combining
//! accent is one, so is a family emoji), not bytes or code points. Characters that show
//! nothing or change how the text around them is shown are refused, not stripped, so what
//! others see is exactly what was sent:
//! - control characters (they could drive the terminal of everyone who reads the line);
//! - format characters (Unicode category Cf: zero-width space, bidi overrides and isolates,
//!   invisible tags...), except a zero-width joiner or non-joiner between two visible
//!   characters, which emoji sequences and some scripts need;
//! - private-use characters, noncharacters, line and paragraph separators;
//! - characters that render as blanks though they are letters (Hangul fillers, the blank
//!   braille pattern, Khmer inherent vowels);
//! - a combining mark with nothing to combine with (at the start of the text or of a name);
//! - more than [`MAX_CLUSTER_CHARS`] code points in one cluster (stacked marks that spill
//!   over the lines around them).

use finl_unicode::categories::CharacterCategories;
use unicode_segmentation::UnicodeSegmentation;

/// The most code points one grapheme cluster may have: the longest emoji sequences (a
/// family with skin tones) have 11; stacks of combining marks beyond this are abuse.
pub(crate) const MAX_CLUSTER_CHARS: usize = 16;

const ZWNJ: char = '\u{200C}';
const ZWJ: char = '\u{200D}';

/// Letters and symbols that render as nothing at all.
fn is_blank_lookalike(c: char) -> bool {
    matches!(
        c,
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}' | '\u{17B4}' | '\u{17B5}'
    )
}

fn is_noncharacter(c: char) -> bool {
    let n = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE
}

/// Why a character is refused, if it is (`prev` and `next` are its neighbours).
fn refusal(c: char, prev: Option<char>, next: Option<char>) -> Option<&'static str> {
    let visible = |n: Option<char>| {
        n.is_some_and(|n| !n.is_whitespace() && !CharacterCategories::is_format(n))
    };
    if c.is_control() {
        Some("a control character")
    } else if c == ZWJ || c == ZWNJ {
        (!(visible(prev) && visible(next))).then_some("a joiner that joins nothing")
    } else if CharacterCategories::is_format(c) {
        Some("an invisible or direction-changing character")
    } else if CharacterCategories::is_private_use(c) || is_noncharacter(c) {
        Some("a private-use character")
    } else if c == '\u{2028}' || c == '\u{2029}' {
        Some("a line break")
    } else if is_blank_lookalike(c) {
        Some("a character that shows as a blank")
    } else {
        None
    }
}

/// Checks `text` character by character; `what` names it in the message.
fn check(text: &str, what: &str) -> Result<usize, String> {
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        if let Some(why) = refusal(c, prev, chars.get(i + 1).copied()) {
            return Err(format!(
                "{what} must not contain {why} (U+{:04X}, character {})",
                u32::from(c),
                i + 1
            ));
        }
    }
    let mut clusters = 0;
    for cluster in text.graphemes(true) {
        clusters += 1;
        if cluster.chars().count() > MAX_CLUSTER_CHARS {
            return Err(format!(
                "{what} has a character with more than {MAX_CLUSTER_CHARS} marks stacked on it"
            ));
        }
        if clusters == 1
            && cluster
                .chars()
                .next()
                .is_some_and(CharacterCategories::is_mark)
        {
            return Err(format!(
                "{what} must not start with a combining mark (it has nothing to combine with)"
            ));
        }
    }
    Ok(clusters)
}

/// A display name: trimmed, then 1 to `max_chars` characters as a person sees them, none
/// of them invisible or changing the direction of text.
///
/// # Errors
/// A message for people saying what is wrong.
pub(crate) fn display_name(raw: &str, max_chars: usize) -> Result<String, String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err("a name must not be empty".to_owned());
    }
    let chars = check(name, "a name")?;
    if chars > max_chars {
        return Err(format!("a name has at most {max_chars} characters"));
    }
    Ok(name.to_owned())
}

/// A chat line as sent (not trimmed): 1 to `max_chars` characters as a person sees them,
/// not only whitespace, none of them invisible or changing the direction of text.
///
/// # Errors
/// A message for people saying what is wrong.
pub(crate) fn chat_text(raw: &str, max_chars: usize) -> Result<String, String> {
    if raw.trim().is_empty() {
        return Err("a chat line must not be empty".to_owned());
    }
    let chars = check(raw, "a chat line")?;
    if chars > max_chars {
        return Err(format!("a chat line has at most {max_chars} characters"));
    }
    Ok(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(display_name("  Ann ", 24).as_deref(), Ok("Ann"));
        assert_eq!(
            display_name(&"é".repeat(24), 24).as_deref(),
            Ok(&*"é".repeat(24))
        );
        assert!(display_name(&"é".repeat(25), 24).is_err());
        assert!(display_name("", 24).is_err());
        assert!(display_name("   ", 24).is_err());
        assert!(
            display_name("\u{3000}\u{A0}", 24).is_err(),
            "Unicode blanks trim"
        );
        assert!(display_name("a\u{7}b", 24).is_err());
        assert!(display_name("a\nb", 24).is_err());
        assert!(display_name("a\u{1b}[31m", 24).is_err());
    }

    #[test]
    fn lengths_count_what_a_person_sees() {
        // e + combining acute is one character; so is a family with skin tones.
        let decomposed = "e\u{301}".repeat(24);
        assert_eq!(display_name(&decomposed, 24).as_deref(), Ok(&*decomposed));
        assert!(display_name(&format!("{decomposed}e"), 24).is_err());
        let family = "\u{1F468}\u{1F3FB}\u{200D}\u{1F469}\u{1F3FB}\u{200D}\u{1F467}\u{1F3FB}\u{200D}\u{1F466}\u{1F3FB}";
        assert_eq!(family.chars().count(), 11);
        assert_eq!(
            display_name(&family.repeat(24), 24).as_deref(),
            Ok(&*family.repeat(24))
        );
        assert!(chat_text(&"🇫🇷".repeat(500), 500).is_ok());
        assert!(chat_text(&"🇫🇷".repeat(501), 500).is_err());
    }

    #[test]
    fn invisible_and_direction_changing_characters_are_refused() {
        for bad in [
            "a\u{200B}b",         // zero-width space
            "\u{FEFF}ann",        // byte order mark
            "ann\u{202E}gpj",     // right-to-left override
            "a\u{2066}b\u{2069}", // isolates
            "a\u{200E}b",         // left-to-right mark
            "a\u{2060}b",         // word joiner
            "a\u{E0041}b",        // tag character
            "a\u{E000}b",         // private use
            "a\u{F0000}b",        // supplementary private use
            "a\u{FFFF}b",         // noncharacter
            "a\u{2028}b",         // line separator
            "\u{3164}",           // Hangul filler
            "a\u{2800}",          // blank braille
            "\u{200D}ann",        // a joiner joining nothing
            "ann\u{200C}",
            "a\u{200D}\u{200D}b",
            "\u{301}ann", // a mark with nothing under it
        ] {
            assert!(display_name(bad, 24).is_err(), "name {bad:?}");
            assert!(chat_text(bad, 500).is_err(), "chat {bad:?}");
        }
        let message = display_name("ann\u{202E}x", 24).expect_err("refused");
        assert!(
            message.contains("U+202E") && message.contains("character 4"),
            "{message}"
        );
        // Joiners inside words and emoji are what they are for.
        assert!(display_name("می\u{200C}خواهم", 24).is_ok());
        assert!(display_name("\u{1F469}\u{200D}\u{1F4BB}", 24).is_ok());
    }

    #[test]
    fn stacked_marks_are_refused() {
        let zalgo = format!("a{}", "\u{301}".repeat(MAX_CLUSTER_CHARS));
        assert!(chat_text(&zalgo, 500).is_err());
        let fine = format!("a{}", "\u{301}".repeat(MAX_CLUSTER_CHARS - 1));
        assert!(chat_text(&fine, 500).is_ok());
    }

    #[test]
    fn chat_lines_are_bounded_and_not_blank() {
        assert_eq!(chat_text(" hi ", 500).as_deref(), Ok(" hi "));
        assert!(chat_text(&"x".repeat(500), 500).is_ok());
        assert!(chat_text(&"x".repeat(501), 500).is_err());
        assert!(chat_text("", 500).is_err());
        assert!(chat_text(" \t ", 500).is_err());
        assert!(chat_text("ring\u{7}", 500).is_err());
    }
}
