//! The error type for reading Graphalytics files.

use std::path::PathBuf;

/// Why a Graphalytics file could not be used. Every variant names the file (and the line,
/// for content errors) so a broken dataset can be fixed without a debugger.
#[derive(Debug, thiserror::Error)]
pub enum GraphalyticsError {
    /// The file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line does not follow the format.
    #[error("{}:{line}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        message: String,
    },
    /// A property the graph needs is absent.
    #[error("{}: missing property `{key}`", path.display())]
    MissingProperty {
        /// The `.properties` file.
        path: PathBuf,
        /// The full key that was looked up.
        key: String,
    },
    /// A property has a value that cannot be used.
    #[error("{}: property `{key}` has invalid value `{value}`", path.display())]
    InvalidProperty {
        /// The `.properties` file.
        path: PathBuf,
        /// The full key.
        key: String,
        /// The raw value.
        value: String,
    },
}

impl GraphalyticsError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn malformed(path: impl Into<PathBuf>, line: usize, message: String) -> Self {
        Self::Malformed {
            path: path.into(),
            line,
            message,
        }
    }
}

/// Reads a whole file, wrapping the error with its path.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, GraphalyticsError> {
    std::fs::read_to_string(path).map_err(|e| GraphalyticsError::io(path, e))
}
