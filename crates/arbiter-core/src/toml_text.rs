//! TOML files people write and read: the text read and parsed, with errors
//! that name the file and, where there is one, the line.
//!
//! The table scripts, calibrations, deck models and deck registries are all
//! such files; each reads them through here so that a syntax error is
//! reported the same way everywhere (`FILE:LINE: what is wrong`).

use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;

/// Byte offset to 1-based line number.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}

/// A problem with a TOML file, located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct TomlError {
    pub file: String,
    /// 1-based; 0 when the problem has no single line.
    pub line: usize,
    pub message: String,
}

impl TomlError {
    pub fn new(file: impl Into<String>, line: usize, message: impl Into<String>) -> TomlError {
        TomlError {
            file: file.into(),
            line,
            message: message.into(),
        }
    }

    /// A `toml` parse or deserialise error of `text`, located by its span.
    pub fn from_toml(file: &str, text: &str, e: &toml::de::Error) -> TomlError {
        let line = e
            .span()
            .map_or(0, |s| LineIndex::new(text).line_of(s.start));
        TomlError::new(file, line, e.message().trim())
    }
}

impl fmt::Display for TomlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

/// Parses `text`, the contents of `file`: a syntax error, an unknown or
/// missing key, a value of the wrong type is reported at its line.
pub fn parse<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, TomlError> {
    toml::from_str(text).map_err(|e| TomlError::from_toml(file, text, &e))
}

/// Reads the file at `path`, which holds the `what` (`"calibration"`,
/// `"deck registry"`): an error names the file.
pub fn read(path: &Path, what: &str) -> Result<String, TomlError> {
    std::fs::read_to_string(path).map_err(|e| {
        TomlError::new(
            path.display().to_string(),
            0,
            format!("cannot read the {what}: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_from_one() {
        let lines = LineIndex::new("ab\ncd\n\nef");
        assert_eq!(lines.line_of(0), 1);
        assert_eq!(lines.line_of(1), 1);
        assert_eq!(lines.line_of(2), 1, "the newline ends its own line");
        assert_eq!(lines.line_of(3), 2);
        assert_eq!(lines.line_of(6), 3);
        assert_eq!(lines.line_of(7), 4);
        assert_eq!(lines.line_of(100), 4, "past the end: the last line");
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let text = "a = 1\nb = 2\nc = [\n";
        let e = parse::<toml::Table>("f.toml", text).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("f.toml", 3), "{e}");
        assert!(e.to_string().starts_with("f.toml:3: "), "{e}");
    }

    #[test]
    fn a_wrong_value_names_its_line() {
        #[derive(serde::Deserialize, Debug)]
        struct Want {
            a: u32,
            b: u32,
        }
        let e = parse::<Want>("f.toml", "a = 1\n\nb = \"two\"\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let w = parse::<Want>("f.toml", "a = 1\nb = 2\n").unwrap();
        assert_eq!((w.a, w.b), (1, 2));
    }

    #[test]
    fn an_unreadable_file_is_named() {
        let path = Path::new("no/such/dir/thing.toml");
        let e = read(path, "thing").unwrap_err();
        assert_eq!(e.line, 0);
        assert_eq!(e.file, path.display().to_string());
        let said = e.to_string();
        assert!(
            said.starts_with("no/such/dir/thing.toml: cannot read the thing: "),
            "{said}"
        );
    }

    #[test]
    fn no_line_no_colon() {
        assert_eq!(TomlError::new("f", 0, "empty").to_string(), "f: empty");
        assert_eq!(TomlError::new("f", 2, "bad").to_string(), "f:2: bad");
    }
}
