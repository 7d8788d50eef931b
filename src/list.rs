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
    item: impl FnMut(sys::napi_value) -> Result<T>,
) -> Result<List<T>> {
    // SAFETY: forwarded from the caller.
    let reader = unsafe { ArrayReader::new(env, value)? };
    Ok(List(reader.and_then(|mut r| r.read(usize::MAX, item))))
}

/// A JavaScript array of the current call, read element by element, perhaps in parts. Made
/// only from a call's own arguments and used up within that call (raw handles keep it on
/// the JavaScript thread).
struct ArrayReader {
    env: sys::napi_env,
    value: sys::napi_value,
    len: u32,
    next: u32,
}

impl ArrayReader {
    /// A reader of `value`, or the `E_TOO_LARGE` error of an array whose `length` is over
    /// [`engine::MAX_LIST_LEN`] (checked before anything is read or allocated).
    ///
    /// # Safety
    /// `env` and `value` must be a live env and a value of the current call, and the reader
    /// must be used up within that call.
    unsafe fn new(
        env: sys::napi_env,
        value: sys::napi_value,
    ) -> Result<std::result::Result<Self, core::IndexError>> {
        // SAFETY: forwarded from the caller (a live env and a value of this call).
        let arr = unsafe { Array::from_napi_value(env, value)? };
        Ok(
            engine::check_list_len(u64::from(arr.len()), "array").map(|_| Self {
                env,
                value,
                len: arr.len(),
                next: 0,
            }),
        )
    }

    fn done(&self) -> bool {
        self.next >= self.len
    }

    /// The next `n` elements (fewer at the end), each converted by `item`; the first element
    /// that fails is an `E_INVALID_ARG` error naming its index.
    fn read<T>(
        &mut self,
        n: usize,
        mut item: impl FnMut(sys::napi_value) -> Result<T>,
    ) -> std::result::Result<Vec<T>, core::IndexError> {
        let (env, value) = (self.env, self.value);
        let end = self
            .len
            .min(self.next.saturating_add(n.try_into().unwrap_or(u32::MAX)));
        // Grow with the elements actually read, never reserve from `length` alone.
        let mut out = Vec::with_capacity(((end - self.next) as usize).min(1024));
        for i in self.next..end {
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
                    self.next = self.len;
                    return Err(core::IndexError::new(
                        ErrorCode::InvalidArg,
                        format!("array element {i}: {}", e.reason),
                    ));
                }
            }
        }
        self.next = end;
        Ok(out)
    }
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

/// The six property keys of a tool entry, in [`ToolEntry`]'s field order.
const KEYS: [&str; 6] = [
    "name",
    "description",
    "searchHint",
    "isMcp",
    "server",
    "schemaText",
];

/// An array of [`ToolEntry`] read straight into core documents: the six property keys are
/// created once per array, not once per element and field, and each element is checked to be
/// an object. The array is checked when the call's arguments are converted; its elements are
/// read when the function body asks for them, all at once ([`Entries::take`]) or in chunks
/// while the index builds the ones before ([`Entries::chunks`]).
pub struct Entries(std::result::Result<EntryReader, core::IndexError>);

struct EntryReader {
    array: ArrayReader,
    keys: [sys::napi_value; 6],
    /// Where strings are read before they are copied out at their exact size.
    scratch: Box<[u8; STRING_SCRATCH]>,
}

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
        let mut keys = [std::ptr::null_mut(); 6];
        for (k, name) in keys.iter_mut().zip(KEYS) {
            // SAFETY: a live env of this call; the key is a valid UTF-8 slice.
            check_status!(unsafe {
                sys::napi_create_string_utf8(env, name.as_ptr().cast(), name.len() as isize, k)
            })?;
        }
        // SAFETY: forwarded from the caller; the reader is used up in this call's body.
        let array = unsafe { ArrayReader::new(env, value)? };
        Ok(Entries(array.map(|array| EntryReader {
            array,
            keys,
            scratch: Box::new([0; STRING_SCRATCH]),
        })))
    }
}

impl EntryReader {
    /// The next `n` entries (fewer at the end).
    fn read(&mut self, n: usize) -> std::result::Result<Vec<core::ToolDoc>, core::IndexError> {
        let (env, keys, scratch) = (self.array.env, self.keys, &mut self.scratch);
        // SAFETY: the reader's env and keys are of the current call (see `ArrayReader`).
        self.array
            .read(n, |obj| unsafe { read_entry(env, &keys, obj, scratch) })
    }
}

/// Room for a string read in one call: longer strings (rare in tool entries) take the
/// two-call path (length, then copy).
const STRING_SCRATCH: usize = 4096;

/// A JavaScript string as UTF-8, read in one Node-API call when it fits `scratch` (the
/// length query is a second pass over the string that most entries' strings do not need).
/// Anything else, and a string that might not have fit, goes through `String`'s own
/// conversion, so values and error messages are those of `String::from_napi_value`.
///
/// # Safety
/// `env` and `v` must be of the current call.
unsafe fn read_string(
    env: sys::napi_env,
    v: sys::napi_value,
    scratch: &mut [u8; STRING_SCRATCH],
) -> Result<String> {
    let mut written = 0;
    // SAFETY: a live env, a value of this call and a buffer of the size passed.
    let status = unsafe {
        sys::napi_get_value_string_utf8(
            env,
            v,
            scratch.as_mut_ptr().cast(),
            STRING_SCRATCH,
            &mut written,
        )
    };
    // The engine writes at most `STRING_SCRATCH - 1` bytes and never part of a character:
    // with fewer than a whole character's room left over, the string is known to be complete.
    if status == sys::Status::napi_ok && written + 4 < STRING_SCRATCH {
        if let Ok(text) = std::str::from_utf8(&scratch[..written]) {
            return Ok(text.to_owned());
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { String::from_napi_value(env, v) }
}

/// One tool entry.
///
/// # Safety
/// `env`, `keys` and `obj` must be of the current call.
unsafe fn read_entry(
    env: sys::napi_env,
    keys: &[sys::napi_value; 6],
    obj: sys::napi_value,
    scratch: &mut [u8; STRING_SCRATCH],
) -> Result<core::ToolDoc> {
    let field = |k: usize| -> Result<sys::napi_value> {
        let mut v = std::ptr::null_mut();
        // SAFETY: a live env, an object of this call and a key created for it.
        check_status!(
            unsafe { sys::napi_get_property(env, obj, keys[k], &mut v) },
            "Failed to get property `{}`",
            KEYS[k]
        )?;
        Ok(v)
    };
    let type_of = |v: sys::napi_value| -> Result<sys::napi_valuetype> {
        let mut ty = 0;
        // SAFETY: a live env and a value of this call.
        check_status!(unsafe { sys::napi_typeof(env, v, &mut ty) })?;
        Ok(ty)
    };
    if type_of(obj)? != sys::ValueType::napi_object {
        return Err(Error::new(
            Status::ObjectExpected,
            "a tool entry must be an object",
        ));
    }
    let named = |k: usize, e: Error| Error::new(e.status, format!("`{}`: {}", KEYS[k], e.reason));
    // SAFETY (each read): a live env and a value of this call.
    let name = unsafe { read_string(env, field(0)?, scratch) }.map_err(|e| named(0, e))?;
    // An optional text: `undefined` and `null` are absent (as `Option<String>` reads them).
    let mut text = |k: usize| -> Result<Option<String>> {
        let v = field(k)?;
        match type_of(v)? {
            sys::ValueType::napi_undefined | sys::ValueType::napi_null => Ok(None),
            _ => unsafe { read_string(env, v, scratch) }
                .map(Some)
                .map_err(|e| named(k, e)),
        }
    };
    let description = text(1)?;
    let search_hint = text(2)?;
    let is_mcp =
        unsafe { Option::<bool>::from_napi_value(env, field(3)?) }.map_err(|e| named(3, e))?;
    let server = text(4)?;
    let schema_text = text(5)?;
    Ok(core::ToolDoc::from(ToolEntry {
        name,
        description,
        search_hint,
        is_mcp,
        server,
        schema_text,
    }))
}

impl Entries {
    /// The array's `length` (0 when it is too long to read).
    pub(crate) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |r| r.array.len as usize)
    }

    /// Every entry, or the first that could not be read (coded).
    pub(crate) fn take(self) -> Result<Vec<core::ToolDoc>, ErrorCode> {
        self.0.and_then(|mut r| r.read(usize::MAX)).map_err(coded)
    }

    /// The entries in chunks of [`core::index::BUILD_CHUNK`], each read when the iterator is
    /// advanced; an entry that cannot be read is the last item.
    pub(crate) fn chunks(self) -> impl Iterator<Item = core::index::ToolChunk> {
        let mut state = Some(self.0);
        std::iter::from_fn(move || match state.take()? {
            Err(e) => Some(Err(e)),
            Ok(mut r) if !r.array.done() => {
                let chunk = r.read(core::index::BUILD_CHUNK);
                if chunk.is_ok() {
                    state = Some(Ok(r));
                }
                Some(chunk)
            }
            Ok(_) => None,
        })
    }
}
