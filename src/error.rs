//! Core errors as JavaScript errors: the message, with the stable core code as `err.code`.

use napi::bindgen_prelude::*;
use tool_index_core as core;
use tool_index_core::ErrorCode;

/// The JavaScript error for a core error.
pub(crate) fn coded(e: core::IndexError) -> Error<ErrorCode> {
    Error::new(e.code, e.message)
}
