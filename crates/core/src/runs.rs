//! Runs of bytes of one class (a word's letters and digits), crossed eight bytes at a time: a
//! byte-by-byte loop ends at a branch the processor mispredicts once a run, where a test of
//! eight bytes at once ends at the first one most of the time.

/// Eight ones, one a byte.
const ONES: u64 = u64::from_le_bytes([1; 8]);

/// The high bit of every byte.
pub(crate) const HIGH: u64 = ONES * 0x80;

/// The byte `b` in each of eight.
pub(crate) const fn splat(b: u8) -> u64 {
    ONES * b as u64
}

/// The high bit of each byte of `x` that lies in `lo..=hi`, for `x` whose bytes are all below
/// 0x80: a byte is at least `lo` where adding `0x80 − lo` sets its high bit, and above `hi`
/// where adding `0x7F − hi` does, and no sum carries into the next byte.
#[inline(always)]
pub(crate) fn within(x: u64, lo: u8, hi: u8) -> u64 {
    (x + splat(0x80 - lo)) & !(x + splat(0x7F - hi)) & HIGH
}

/// The end of the run at `from` of bytes of a class: the first index at or after `from`
/// whose byte is not of it, or the length of `b`. `members` gives the high bit of each of
/// eight bytes (read little-endian) that is of the class, `member` answers for one byte; a
/// zero byte must not be of it (a text's last bytes are read as its last eight, shifted, so
/// zeros come in at the top).
#[inline]
pub(crate) fn run_end(
    b: &[u8],
    from: usize,
    members: impl Fn(u64) -> u64,
    member: impl Fn(u8) -> bool,
) -> usize {
    let stop_in = |v: u64| !members(v) & HIGH;
    let mut at = from;
    while let Some(chunk) = b.get(at..at + 8) {
        let stop = stop_in(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])));
        if stop != 0 {
            return at + (stop.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    if at >= b.len() {
        return b.len();
    }
    if let Some(last) = b.len().checked_sub(8).and_then(|s| b.get(s..)) {
        let v = u64::from_le_bytes(last.try_into().unwrap_or([0; 8])) >> (8 * (at + 8 - b.len()));
        // The top byte came in as zero, which is of no class: `stop` is never 0.
        return at + (stop_in(v).trailing_zeros() / 8) as usize;
    }
    while b.get(at).is_some_and(|&x| member(x)) {
        at += 1;
    }
    at
}

/// Checks for a class's [`run_end`]: the run end at every start of texts of every length (a
/// text of the 128 ASCII bytes, one of all 256, among them; only ASCII ones when `ascii_only`),
/// against a byte-by-byte loop of `member`.
#[cfg(test)]
pub(crate) fn assert_run_end_is_the_byte_loop(
    members: fn(u64) -> u64,
    member: fn(u8) -> bool,
    ascii_only: bool,
) {
    let mut texts: Vec<Vec<u8>> = [
        "",
        "a",
        "ab1",
        "abcdefg",
        "abcdefgh",
        "abcdefghi",
        "Create_a FILE9 z@[`{/:0-x_y",
        "xyzXYZ09 AZaz@[`{/:",
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_",
        "\x7f\x00~!a",
        "naïve 文件 ab",
    ]
    .iter()
    .map(|t| t.as_bytes().to_vec())
    .collect();
    texts.push((0u8..128).collect());
    texts.push((0u8..=255).rev().collect());
    for t in texts.iter().filter(|t| !ascii_only || t.is_ascii()) {
        for n in 0..=t.len() {
            for from in 0..n {
                let mut at = from;
                while t[..n].get(at).is_some_and(|&x| member(x)) {
                    at += 1;
                }
                assert_eq!(
                    run_end(&t[..n], from, members, member),
                    at,
                    "{t:?} {n} {from}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every single byte value as its own class, in any bytes.
    #[test]
    fn one_byte_classes() {
        assert_run_end_is_the_byte_loop(
            |v| within(v & !HIGH, b'q', b'q') & !(v & HIGH),
            |x| x == b'q',
            false,
        );
        assert_run_end_is_the_byte_loop(
            |v| within(v & !HIGH, 1, 0x7F) & !(v & HIGH),
            |x| (1..0x80).contains(&x),
            false,
        );
    }
}
