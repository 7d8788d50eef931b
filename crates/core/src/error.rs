//! Errors with stable, machine-readable codes.
//!
//! The binding turns an [`IndexError`] into a JavaScript `Error` whose `code` property is
//! [`ErrorCode::as_str`]; the codes are part of the public API and never change meaning.

use std::fmt;

/// Stable error codes. `as_str()` is what JavaScript sees in `error.code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// An argument has the wrong type or shape (e.g. a tool without a string `name`).
    InvalidArg,
    /// Two tools in one build share a name.
    DuplicateName,
    /// A result limit that is not a non-negative number.
    InvalidLimit,
    /// A minimum score or weight that is not a finite number.
    InvalidNumber,
    /// An unknown scoring mode.
    InvalidScoring,
    /// An input larger than the documented caps.
    TooLarge,
    /// A Rust panic caught at the boundary (a bug: please report it).
    Internal,
    /// A method called on an index after its `dispose()`.
    Disposed,
}

impl ErrorCode {
    /// The code string, e.g. `"E_DUPLICATE_NAME"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArg => "E_INVALID_ARG",
            ErrorCode::DuplicateName => "E_DUPLICATE_NAME",
            ErrorCode::InvalidLimit => "E_INVALID_LIMIT",
            ErrorCode::InvalidNumber => "E_INVALID_NUMBER",
            ErrorCode::InvalidScoring => "E_INVALID_SCORING",
            ErrorCode::TooLarge => "E_TOO_LARGE",
            ErrorCode::Internal => "E_INTERNAL",
            ErrorCode::Disposed => "E_DISPOSED",
        }
    }
}

impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// An error with a stable [`ErrorCode`] and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexError {
    pub code: ErrorCode,
    pub message: String,
}

impl IndexError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for IndexError {}

/// Validate a result limit given as a JavaScript number.
///
/// The documented clamp: `NaN`, negative numbers and non-numbers are errors
/// ([`ErrorCode::InvalidLimit`]); a fractional limit is truncated toward zero (as
/// `Array.prototype.slice` does); `Infinity` and anything above `usize::MAX` mean "all".
pub fn limit_from_f64(limit: f64) -> Result<usize, IndexError> {
    if limit.is_nan() {
        return Err(IndexError::new(
            ErrorCode::InvalidLimit,
            "limit is NaN; pass a non-negative number",
        ));
    }
    if limit < 0.0 {
        return Err(IndexError::new(
            ErrorCode::InvalidLimit,
            format!("limit must be >= 0, got {limit}"),
        ));
    }
    if limit >= usize::MAX as f64 {
        return Ok(usize::MAX);
    }
    Ok(limit.trunc() as usize)
}

/// Validate a finite number (minimum scores, weights).
pub fn finite(value: f64, what: &str) -> Result<f64, IndexError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(IndexError::new(
            ErrorCode::InvalidNumber,
            format!("{what} must be a finite number, got {value}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_clamp_as_documented() {
        assert_eq!(limit_from_f64(5.0), Ok(5));
        assert_eq!(limit_from_f64(2.9), Ok(2));
        assert_eq!(limit_from_f64(0.0), Ok(0));
        assert_eq!(limit_from_f64(f64::INFINITY), Ok(usize::MAX));
        assert_eq!(limit_from_f64(1e300), Ok(usize::MAX));
        assert_eq!(
            limit_from_f64(-1.0).unwrap_err().code,
            ErrorCode::InvalidLimit
        );
        assert_eq!(
            limit_from_f64(f64::NAN).unwrap_err().code,
            ErrorCode::InvalidLimit
        );
        assert_eq!(ErrorCode::DuplicateName.as_str(), "E_DUPLICATE_NAME");
    }
}
