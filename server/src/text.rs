//! Validation of the text people type: display names, room names and chat lines.

/// A display name: trimmed, 1 to `max_chars` characters, no control characters.
///
/// # Errors
/// A message for people saying what is wrong.
pub(crate) fn display_name(raw: &str, max_chars: usize) -> Result<String, String> {
    let name = raw.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err("a name must not be empty".to_owned());
    }
    if chars > max_chars {
        return Err(format!("a name has at most {max_chars} characters"));
    }
    if name.chars().any(char::is_control) {
        return Err("a name must not contain control characters".to_owned());
    }
    Ok(name.to_owned())
}

/// A chat line: 1 to `max_chars` characters, not only whitespace, and no control
/// characters (they could drive the terminal of everyone who reads the line).
///
/// # Errors
/// A message for people saying what is wrong.
pub(crate) fn chat_text(raw: &str, max_chars: usize) -> Result<String, String> {
    if raw.trim().is_empty() {
        return Err("a chat line must not be empty".to_owned());
    }
    if raw.chars().count() > max_chars {
        return Err(format!("a chat line has at most {max_chars} characters"));
    }
    if raw.chars().any(char::is_control) {
        return Err("a chat line must not contain control characters".to_owned());
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
        assert!(display_name("a\u{7}b", 24).is_err());
        assert!(display_name("a\nb", 24).is_err());
        assert!(display_name("a\u{1b}[31m", 24).is_err());
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
