//! An on-disk cache of text vectors, one file per model: `<dir>/<model id>.vec`.
//!
//! Layout (little-endian): the magic `TIVC2\n`, the model id (u32 length + UTF-8), the dimension
//! (u32), then records of key (the SHA-256 of the text, 32 bytes) and `dim` f32. A key no text
//! can be made to share: a tool whose text collided with another's would get that tool's
//! vector, and rank as it does (files of the first layout, keyed by a 64-bit FNV-1a hash and
//! the length, are ignored and written anew).
//! A file that does not parse, or was written for another model id or dimension, is ignored
//! (and replaced on the next save); a torn last record is dropped.
//!
//! A save appends the records added since the last one, in one write (so two processes sharing
//! a cache keep each other's vectors, and a save costs what it adds, not the whole file); a file
//! that cannot take an append (missing, replaced, torn, another model's) is written anew, to a
//! fresh temporary file renamed over it.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::EncoderError;

const MAGIC: &[u8] = b"TIVC2\n";

/// Bytes of a record's key.
const KEY_LEN: usize = 32;

/// The largest cache file read (about 1.3 million MiniLM vectors); a larger one is ignored.
const MAX_FILE_BYTES: u64 = 2 << 30;

/// A regular file's bytes, or `None`: a FIFO, a device or a directory is never opened (a FIFO
/// would block the open), and a file over `limit` bytes is not read.
fn read_regular(path: &Path, limit: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

/// The cache key of a text: its SHA-256.
pub fn text_key(text: &str) -> [u8; KEY_LEN] {
    Sha256::digest(text.as_bytes()).into()
}

/// Vectors keyed by text (`text_key`).
type Vectors = HashMap<[u8; KEY_LEN], Vec<f32>>;

/// Vectors of one model, keyed by text.
#[derive(Debug)]
pub struct VectorCache {
    path: PathBuf,
    model_id: String,
    dim: usize,
    map: Vectors,
    /// Keys put since the last save, in order.
    pending: Vec<[u8; KEY_LEN]>,
    /// Bytes of the file as this cache last read or wrote it (`None`: write it anew).
    file_len: Option<u64>,
    /// A save failed: the file cannot be written, so later saves do not try again (each would
    /// build the whole file first).
    unwritable: bool,
}

fn file_name(model_id: &str) -> String {
    let safe: String = model_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' || c == '@' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.vec")
}

impl VectorCache {
    /// Open (or start) the cache of `model_id` with vectors of `dim` floats under `dir`.
    /// Never fails on a bad file: it starts empty instead.
    pub fn open(dir: impl AsRef<Path>, model_id: &str, dim: usize) -> Self {
        let path = dir.as_ref().join(file_name(model_id));
        let (map, file_len) = match read_regular(&path, MAX_FILE_BYTES).and_then(|b| {
            parse(&b, model_id, dim).map(|(m, whole)| (m, whole.then_some(b.len() as u64)))
        }) {
            Some((map, len)) => (map, len),
            None => (HashMap::new(), None),
        };
        Self {
            path,
            model_id: model_id.to_string(),
            dim,
            map,
            pending: Vec::new(),
            file_len,
            unwritable: false,
        }
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of cached vectors.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The cached vector of `text`.
    pub fn get(&self, text: &str) -> Option<&[f32]> {
        self.map.get(&text_key(text)).map(|v| v.as_slice())
    }

    /// Cache the vector of `text` (ignored when its length is not the cache's dimension).
    pub fn put(&mut self, text: &str, vector: Vec<f32>) {
        if vector.len() == self.dim {
            let key = text_key(text);
            if self.map.insert(key, vector).is_none() {
                self.pending.push(key);
            }
        }
    }

    /// Write what changed: appended to the file when it is still as this cache knows it,
    /// else the whole cache to a fresh temporary file renamed over it.
    pub fn save(&mut self) -> Result<(), EncoderError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.unwritable {
            return Err(EncoderError::new(
                "E_CACHE",
                format!("{}: an earlier save failed", self.path.display()),
            ));
        }
        if let Some(len) = self.file_len {
            let mut buf = Vec::with_capacity(self.pending.len() * self.record_len());
            for key in &self.pending {
                self.push_record(&mut buf, key);
            }
            if let Some(new_len) =
                append(&self.path, len, self.header_len(), self.record_len(), &buf)
            {
                self.file_len = Some(new_len);
                self.pending.clear();
                return Ok(());
            }
        }
        let r = self.rewrite();
        self.unwritable = r.is_err();
        r
    }

    fn header_len(&self) -> u64 {
        (MAGIC.len() + 8 + self.model_id.len()) as u64
    }

    fn record_len(&self) -> usize {
        record_len(self.dim)
    }

    fn push_record(&self, buf: &mut Vec<u8>, key: &[u8; KEY_LEN]) {
        if let Some(v) = self.map.get(key) {
            buf.extend_from_slice(key);
            for x in v {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
    }

    /// The whole cache to a new temporary file (never one that already exists: a FIFO or a link
    /// left at that name is not opened), renamed over the cache file. The vectors another
    /// process saved in the file meanwhile (whole records of this model) are kept.
    fn rewrite(&mut self) -> Result<(), EncoderError> {
        let err = |e: std::io::Error| {
            EncoderError::new("E_CACHE", format!("{}: {e}", self.path.display()))
        };
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(err)?;
        }
        if let Some((theirs, _)) = read_regular(&self.path, MAX_FILE_BYTES)
            .and_then(|b| parse(&b, &self.model_id, self.dim))
        {
            for (key, v) in theirs {
                self.map.entry(key).or_insert(v);
            }
        }
        let mut last = None;
        for attempt in 0..4u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let tmp = self
                .path
                .with_extension(format!("vec.{}.{nanos:x}{attempt}.tmp", std::process::id()));
            let mut f = match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
            {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    last = Some(e);
                    continue;
                }
                Err(e) => return Err(err(e)),
            };
            let buf = self.file_bytes();
            let written = f.write_all(&buf);
            f.sync_all().ok();
            drop(f);
            if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &self.path)) {
                std::fs::remove_file(&tmp).ok();
                return Err(err(e));
            }
            self.file_len = Some(buf.len() as u64);
            self.pending.clear();
            return Ok(());
        }
        Err(err(last.unwrap_or_else(|| {
            std::io::Error::other("no temporary name was free")
        })))
    }
}

impl VectorCache {
    /// The whole file: the header, then every vector.
    fn file_bytes(&self) -> Vec<u8> {
        let mut buf =
            Vec::with_capacity(self.header_len() as usize + self.map.len() * self.record_len());
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&(self.model_id.len() as u32).to_le_bytes());
        buf.extend_from_slice(self.model_id.as_bytes());
        buf.extend_from_slice(&(self.dim as u32).to_le_bytes());
        for key in self.map.keys() {
            self.push_record(&mut buf, key);
        }
        buf
    }
}

/// Append `records` to the cache file at `path` when it is a regular file whose length is
/// still `known` or whole records past it (another process's appends); the new length, or
/// `None` when the file must be written anew. A FIFO, a device or a link is never written to.
fn append(path: &Path, known: u64, header: u64, record: usize, records: &[u8]) -> Option<u64> {
    let mut options = std::fs::OpenOptions::new();
    options.append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut f = options.open(path).ok()?;
    let len = f.metadata().ok()?.len();
    if !f.metadata().ok()?.is_file() || len < known || !(len - header).is_multiple_of(record as u64)
    {
        return None;
    }
    f.write_all(records).ok()?;
    Some(len + records.len() as u64)
}

/// Bytes of one record: its key, then `dim` f32.
fn record_len(dim: usize) -> usize {
    KEY_LEN + 4 * dim
}

/// The vectors of a cache file, and whether it ends on a whole record.
fn parse(b: &[u8], model_id: &str, dim: usize) -> Option<(Vectors, bool)> {
    let rest = b.strip_prefix(MAGIC)?;
    let u32_at = |s: &[u8], i: usize| -> Option<u32> {
        Some(u32::from_le_bytes(s.get(i..i + 4)?.try_into().ok()?))
    };
    let id_len = u32_at(rest, 0)? as usize;
    let id = rest.get(4..4 + id_len)?;
    if id != model_id.as_bytes() {
        return None;
    }
    let d = u32_at(rest, 4 + id_len)? as usize;
    if d != dim || dim == 0 {
        return None;
    }
    let body = &rest[8 + id_len..];
    let rec = record_len(dim);
    let mut map = HashMap::with_capacity(body.len() / rec);
    for r in body.chunks_exact(rec) {
        let key: [u8; KEY_LEN] = r[..KEY_LEN].try_into().ok()?;
        let v: Vec<f32> = r[KEY_LEN..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if v.iter().all(|x| x.is_finite()) {
            map.insert(key, v);
        }
    }
    Some((map, body.len() % rec == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_not_read() {
        let dir = std::env::temp_dir().join(format!("tivc-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join(file_name("m@1"));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if made {
            // Opening a FIFO with no writer would block: the cache starts empty instead.
            assert!(VectorCache::open(&dir, "m@1", 4).is_empty());
        }
        assert!(read_regular(Path::new("/dev/zero"), 1 << 20).is_none());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_save_never_writes_through_a_link_or_a_leftover() {
        let dir = std::env::temp_dir().join(format!("tivc-save-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("victim.txt");
        std::fs::write(&target, b"keep me").unwrap();
        let mut c = VectorCache::open(&dir, "m@2", 2);
        c.put("a", vec![1.0, 0.0]);
        // A leftover at the temporary name a process of this pid once used blocks nothing.
        let old_tmp = c
            .path()
            .with_extension(format!("vec.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&target, &old_tmp).unwrap();
        c.save().unwrap();
        // The cache file replaced by a link: the next save writes a new file, not the target.
        std::fs::remove_file(c.path()).unwrap();
        std::os::unix::fs::symlink(&target, c.path()).unwrap();
        c.put("b", vec![0.0, 1.0]);
        c.save().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
        assert!(!std::fs::symlink_metadata(c.path()).unwrap().is_symlink());
        assert_eq!(VectorCache::open(&dir, "m@2", 2).len(), 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn two_writers_that_open_before_either_saves_keep_both() {
        let dir = std::env::temp_dir().join(format!("tivc-fresh-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Neither finds a file, so neither can append: the second one's rewrite must keep what
        // the first one wrote.
        let mut a = VectorCache::open(&dir, "m@4", 2);
        let mut b = VectorCache::open(&dir, "m@4", 2);
        a.put("one", vec![1.0, 0.0]);
        b.put("two", vec![0.0, 1.0]);
        a.save().unwrap();
        b.save().unwrap();
        let both = VectorCache::open(&dir, "m@4", 2);
        assert_eq!(both.len(), 2);
        assert_eq!(both.get("one"), Some(&[1.0f32, 0.0][..]));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_that_cannot_be_written_stops_trying() {
        let dir = std::env::temp_dir().join(format!("tivc-unwritable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A file where the cache's directory should be: no save can succeed.
        let blocked = dir.join("not-a-dir");
        std::fs::write(&blocked, b"x").unwrap();
        let mut c = VectorCache::open(&blocked, "m@5", 2);
        c.put("one", vec![1.0, 0.0]);
        assert!(c.save().is_err());
        assert!(c.unwritable);
        c.put("two", vec![0.0, 1.0]);
        let e = c.save().unwrap_err();
        assert!(
            e.message.contains("an earlier save failed"),
            "{}",
            e.message
        );
        // The vectors stay usable in memory.
        assert_eq!(c.len(), 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn saves_append_and_two_writers_keep_both() {
        let dir = std::env::temp_dir().join(format!("tivc-append-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut a = VectorCache::open(&dir, "m@3", 2);
        a.put("one", vec![1.0, 0.0]);
        a.save().unwrap();
        let first = std::fs::metadata(a.path()).unwrap().len();
        let mut b = VectorCache::open(&dir, "m@3", 2);
        a.put("two", vec![0.0, 1.0]);
        b.put("three", vec![1.0, 1.0]);
        a.save().unwrap();
        b.save().unwrap();
        // Each save added its own record and nothing else.
        let rec = record_len(2) as u64;
        assert_eq!(std::fs::metadata(a.path()).unwrap().len(), first + 2 * rec);
        let both = VectorCache::open(&dir, "m@3", 2);
        assert_eq!(both.len(), 3);
        assert_eq!(both.get("three"), Some(&[1.0f32, 1.0][..]));
        // A torn file is not appended to (the records after the tear would be misread): the
        // next save writes it anew.
        let bytes = std::fs::read(a.path()).unwrap();
        std::fs::write(a.path(), &bytes[..bytes.len() - 3]).unwrap();
        let mut c = VectorCache::open(&dir, "m@3", 2);
        assert_eq!(c.len(), 2);
        c.put("four", vec![0.5, 0.5]);
        c.save().unwrap();
        assert_eq!(VectorCache::open(&dir, "m@3", 2).len(), 3);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn texts_are_keyed_by_their_sha256() {
        // FIPS 180-2's example: a key no other text can be made to share.
        let want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let got: String = text_key("abc").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, want);
        assert_ne!(text_key("abc"), text_key("abd"));
    }

    #[test]
    fn a_file_of_the_first_layout_is_ignored_and_written_anew() {
        let dir = std::env::temp_dir().join(format!("tivc-v1-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // The first layout: magic, model id, dimension, then (u64 hash, u32 length, f32 × dim).
        let mut v1 = b"TIVC1\n".to_vec();
        v1.extend_from_slice(&3u32.to_le_bytes());
        v1.extend_from_slice(b"m@5");
        v1.extend_from_slice(&2u32.to_le_bytes());
        v1.extend_from_slice(&[7u8; 12]);
        v1.extend_from_slice(&[0u8; 8]);
        let path = dir.join(file_name("m@5"));
        std::fs::write(&path, &v1).unwrap();
        let mut c = VectorCache::open(&dir, "m@5", 2);
        assert!(c.is_empty());
        c.put("one", vec![1.0, 0.0]);
        c.save().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(MAGIC));
        let again = VectorCache::open(&dir, "m@5", 2);
        assert_eq!(again.len(), 1);
        assert_eq!(again.get("one"), Some(&[1.0f32, 0.0][..]));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn round_trip_and_model_isolation() {
        let dir = std::env::temp_dir().join(format!("tivc-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = VectorCache::open(&dir, "m@1", 3);
        assert!(c.is_empty());
        c.put("hello", vec![1.0, 2.0, 3.0]);
        c.put("wrong dim", vec![1.0]);
        c.save().unwrap();
        let c2 = VectorCache::open(&dir, "m@1", 3);
        assert_eq!(c2.get("hello"), Some(&[1.0f32, 2.0, 3.0][..]));
        assert_eq!(c2.get("wrong dim"), None);
        assert!(VectorCache::open(&dir, "m@2", 3).is_empty());
        // A torn file is read up to its last whole record; garbage starts empty.
        let bytes = std::fs::read(c2.path()).unwrap();
        std::fs::write(c2.path(), &bytes[..bytes.len() - 2]).unwrap();
        assert!(VectorCache::open(&dir, "m@1", 3).is_empty());
        std::fs::write(c2.path(), b"garbage").unwrap();
        assert!(VectorCache::open(&dir, "m@1", 3).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
