//! Arrays from JavaScript: [`List`] (any element type, length checked first) and
//! [`Entries`] (tool entries read straight into core documents).

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core as core;
use tool_index_core::engine;
use tool_index_core::ErrorCode;

use crate::error::coded;

/// A JavaScript array read element by element. Its `length` is checked against
/// [`engine::MAX_LIST_LEN`] before anything is read or allocated, so a sparse array with a
/// huge `length` is an `E_TOO_LARGE` error, not an allocation failure. Conversion problems
/// are kept and thrown (coded) when the function body takes the list.
pub struct List<T>(std::result::Result<Vec<T>, core::IndexError>);

impl<T> List<T> {
    pub(crate) fn take(self) -> Result<Vec<T>, ErrorCode> {
        self.0.map_err(coded)
    }
}

pub(crate) fn opt_list<T>(l: Option<List<T>>) -> Result<Option<Vec<T>>, ErrorCode> {
    l.map(List::take).transpose()
}

impl<T> TypeName for List<T> {
    fn type_name() -> &'static str {
        "Array<T>"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T: FromNapiValue> FromNapiValue for List<T> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        // SAFETY: forwarded from the caller.
        unsafe { read_array(env, value, |v| T::from_napi_value(env, v)) }
    }
}

/// Read a JavaScript array with `item` converting each element (see [`List`]).
///
/// # Safety
/// `env` and `value` must be a live env and a value of the current call.
unsafe fn read_array<T>(
    env: sys::napi_env,
    value: sys::napi_value,
    mut item: impl FnMut(sys::napi_value) -> Result<T>,
) -> Result<List<T>> {
    // SAFETY: forwarded from the caller (a live env and a value of this call).
    let arr = unsafe { Array::from_napi_value(env, value)? };
    let len = match engine::check_list_len(u64::from(arr.len()), "array") {
        Ok(n) => n,
        Err(e) => return Ok(List(Err(e))),
    };
    // Grow with the elements actually read, never reserve from `length` alone.
    let mut out = Vec::with_capacity(len.min(1024));
    for i in 0..arr.len() {
        let mut element = std::ptr::null_mut();
        // SAFETY: a live env, the array of this call and an index below its length.
        let got = unsafe { sys::napi_get_element(env, value, i, &mut element) };
        let converted = if got == sys::Status::napi_ok {
            item(element)
        } else {
            Err(Error::from_status(Status::from(got)))
        };
        match converted {
            Ok(v) => out.push(v),
            Err(e) => {
                // A conversion that ran into a JavaScript exception (a getter that
                // throws, a hole read as `undefined`) leaves it pending: take it, so the
                // coded error is the one the caller sees.
                let mut pending = false;
                // SAFETY: a live env of this call; the exception value is dropped.
                unsafe {
                    if sys::napi_is_exception_pending(env, &mut pending) == sys::Status::napi_ok
                        && pending
                    {
                        let mut ex = std::ptr::null_mut();
                        sys::napi_get_and_clear_last_exception(env, &mut ex);
                    }
                }
                return Ok(List(Err(core::IndexError::new(
                    ErrorCode::InvalidArg,
                    format!("array element {i}: {}", e.reason),
                ))));
            }
        }
    }
    Ok(List(Ok(out)))
}

impl<T: FromNapiValue> ValidateNapiValue for List<T> {}

/// A tool entry as the index takes it. `inputSchema` is accepted and ignored by the
/// native index (the TypeScript layer keeps it).
#[napi(object)]
pub struct ToolEntry {
    pub name: String,
    pub description: Option<String>,
    pub search_hint: Option<String>,
    pub is_mcp: Option<bool>,
    /// The MCP server (used by enhanced scoring; `mcp__<server>__` names carry it already).
    pub server: Option<String>,
    /// Input-schema property names and descriptions as text (used by enhanced scoring).
    pub schema_text: Option<String>,
}

impl From<ToolEntry> for core::ToolDoc {
    fn from(t: ToolEntry) -> Self {
        core::ToolDoc {
            name: t.name,
            description: t.description.unwrap_or_default(),
            search_hint: t.search_hint,
            is_mcp: t.is_mcp,
            server: t.server,
            schema_text: t.schema_text,
        }
    }
}

/// An array of [`ToolEntry`] read straight into core documents: the six property keys are
/// created once per array, not once per element and field, and each element is checked to be
/// an object.
pub struct Entries(List<core::ToolDoc>);

impl TypeName for Entries {
    fn type_name() -> &'static str {
        "Array<ToolEntry>"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ValidateNapiValue for Entries {}

impl FromNapiValue for Entries {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        const KEYS: [&str; 6] = [
            "name",
            "description",
            "searchHint",
            "isMcp",
            "server",
            "schemaText",
        ];
        let mut keys = [std::ptr::null_mut(); 6];
        for (k, name) in keys.iter_mut().zip(KEYS) {
            // SAFETY: a live env of this call; the key is a valid UTF-8 slice.
            check_status!(unsafe {
                sys::napi_create_string_utf8(env, name.as_ptr().cast(), name.len() as isize, k)
            })?;
        }
        let field = |obj: sys::napi_value, k: usize| -> Result<sys::napi_value> {
            let mut v = std::ptr::null_mut();
            // SAFETY: a live env, an object of this call and a key created above.
            check_status!(
                unsafe { sys::napi_get_property(env, obj, keys[k], &mut v) },
                "Failed to get property `{}`",
                KEYS[k]
            )?;
            Ok(v)
        };
        // SAFETY: forwarded from the caller; every value read is of this call.
        let list = unsafe {
            read_array(env, value, |obj| {
                let mut ty = 0;
                check_status!(sys::napi_typeof(env, obj, &mut ty))?;
                if ty != sys::ValueType::napi_object {
                    return Err(Error::new(
                        Status::ObjectExpected,
                        "a tool entry must be an object",
                    ));
                }
                let name = field(obj, 0)?;
                let name = String::from_napi_value(env, name)
                    .map_err(|e| Error::new(e.status, format!("`name`: {}", e.reason)))?;
                let text = |k: usize| -> Result<Option<String>> {
                    Option::<String>::from_napi_value(env, field(obj, k)?)
                        .map_err(|e| Error::new(e.status, format!("`{}`: {}", KEYS[k], e.reason)))
                };
                let description = text(1)?;
                let search_hint = text(2)?;
                let is_mcp = Option::<bool>::from_napi_value(env, field(obj, 3)?)
                    .map_err(|e| Error::new(e.status, format!("`isMcp`: {}", e.reason)))?;
                Ok(core::ToolDoc::from(ToolEntry {
                    name,
                    description,
                    search_hint,
                    is_mcp,
                    server: text(4)?,
                    schema_text: text(5)?,
                }))
            })?
        };
        Ok(Entries(list))
    }
}

pub(crate) fn docs(tools: Entries) -> Result<Vec<core::ToolDoc>, ErrorCode> {
    tools.0.take()
}
