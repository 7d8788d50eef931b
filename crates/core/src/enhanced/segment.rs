//! Word boundaries (Unicode UAX #29) with a fast path for ASCII text.
//!
//! The `unicode-segmentation` crate looks every character up in a range table; for ASCII,
//! which is most tool text and most requests, the categories are a handful of byte classes
//! and the rules that apply are few, so [`word_bound_indices`] walks the bytes instead. It
//! yields exactly the segments the crate yields (checked against it in the tests below);
//! any other text goes to the crate.

use unicode_segmentation::{UWordBoundIndices, UnicodeSegmentation};

use crate::runs::{run_end, splat, within};

/// The UAX #29 word-break classes of ASCII bytes (all the rules need for ASCII text).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `\r`
    Cr,
    /// `\n`
    Lf,
    /// Vertical tab, form feed.
    Newline,
    /// The space character (not tab).
    Space,
    /// `A`–`Z`, `a`–`z`.
    Letter,
    /// `0`–`9`.
    Digit,
    /// `:` (MidLetter).
    MidLetter,
    /// `,` and `;` (MidNum).
    MidNum,
    /// `.` (MidNumLet) and `'` (Single_Quote): both join letters and digits alike.
    MidNumLetQ,
    /// `_` (ExtendNumLet).
    Connector,
    /// Everything else, including `"` and tab.
    Other,
}

const fn class_of(b: u8) -> Class {
    match b {
        b'\r' => Class::Cr,
        b'\n' => Class::Lf,
        0x0B | 0x0C => Class::Newline,
        b' ' => Class::Space,
        b'A'..=b'Z' | b'a'..=b'z' => Class::Letter,
        b'0'..=b'9' => Class::Digit,
        b':' => Class::MidLetter,
        b',' | b';' => Class::MidNum,
        b'.' | b'\'' => Class::MidNumLetQ,
        b'_' => Class::Connector,
        _ => Class::Other,
    }
}

/// [`class_of`] for every ASCII byte.
static CLASSES: [Class; 128] = {
    let mut t = [Class::Other; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = class_of(b as u8);
        b += 1;
    }
    t
};

fn class(b: u8) -> Class {
    CLASSES[usize::from(b & 0x7F)]
}

/// Whether the rules keep `cur` in the same segment as `prev` (`before` is the class ahead of
/// `prev`, `after` the one after `cur`).
fn joins(before: Option<Class>, prev: Class, cur: Class, after: Option<Class>) -> bool {
    use Class::*;
    match (prev, cur) {
        (Cr, Lf) => true,                                           // WB3
        (Cr | Lf | Newline, _) | (_, Cr | Lf | Newline) => false,   // WB3a, WB3b
        (Space, Space) => true,                                     // WB3d
        (Letter | Digit, Letter | Digit) => true,                   // WB5, WB8, WB9, WB10
        (Letter, MidLetter | MidNumLetQ) => after == Some(Letter),  // WB6
        (MidLetter | MidNumLetQ, Letter) => before == Some(Letter), // WB7
        (Digit, MidNum | MidNumLetQ) => after == Some(Digit),       // WB12
        (MidNum | MidNumLetQ, Digit) => before == Some(Digit),      // WB11
        (Letter | Digit | Connector, Connector) => true,            // WB13a
        (Connector, Letter | Digit) => true,                        // WB13b
        _ => false,                                                 // WB999
    }
}

/// The word-boundary segments of `text` with their byte offsets, as
/// `UnicodeSegmentation::split_word_bound_indices` gives them.
pub fn word_bound_indices(text: &str) -> WordBounds<'_> {
    if text.is_ascii() {
        WordBounds::Ascii(AsciiBounds {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        })
    } else {
        WordBounds::Unicode(text.split_word_bound_indices())
    }
}

/// The iterator of [`word_bound_indices`].
pub enum WordBounds<'a> {
    Ascii(AsciiBounds<'a>),
    Unicode(UWordBoundIndices<'a>),
}

impl<'a> Iterator for WordBounds<'a> {
    type Item = (usize, &'a str);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            WordBounds::Ascii(a) => a.next(),
            WordBounds::Unicode(u) => u.next(),
        }
    }
}

/// The segments of `text` (see [`word_bound_indices`]).
pub fn word_bounds(text: &str) -> impl Iterator<Item = &str> {
    word_bound_indices(text).map(|(_, s)| s)
}

/// The segments of `text` with their byte offsets ([`word_bound_indices`]) but those of
/// spaces (`' '`) alone, which ASCII text steps over instead of making into segments.
pub fn bound_indices_but_spaces(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut bounds = word_bound_indices(text);
    std::iter::from_fn(move || match &mut bounds {
        WordBounds::Ascii(a) => {
            // A space joins only spaces (WB3d): the byte after a run of them opens a segment.
            while a.bytes.get(a.pos) == Some(&b' ') {
                a.pos += 1;
            }
            a.next()
        }
        WordBounds::Unicode(u) => u.find(|(_, s)| !s.bytes().all(|b| b == b' ')),
    })
}

/// The segments of `text` that have a letter or digit (the words of
/// [`super::analyze::words`]), in order. For ASCII text the bytes that cannot open such a
/// segment (all but letters, digits and `_`) are stepped over instead of being made into
/// segments.
pub fn word_segments(text: &str) -> WordSegments<'_> {
    match word_bound_indices(text) {
        WordBounds::Ascii(a) => WordSegments::Ascii(a),
        WordBounds::Unicode(u) => WordSegments::Unicode(u),
    }
}

/// Whether a word-boundary segment is a word (has a letter or digit; see [`word_segments`]).
pub fn is_word(segment: &str) -> bool {
    segment.chars().any(|c| c.is_alphanumeric())
}

/// The iterator of [`word_segments`].
pub enum WordSegments<'a> {
    Ascii(AsciiBounds<'a>),
    Unicode(UWordBoundIndices<'a>),
}

impl<'a> Iterator for WordSegments<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            WordSegments::Ascii(a) => loop {
                let b = a.bytes;
                while a.pos < b.len() && !opens_word(class(b[a.pos])) {
                    a.pos += 1;
                }
                let (_, s) = a.next()?;
                // A segment that opens with `_` may be nothing but `_`.
                if !s.starts_with('_') || is_word(s) {
                    return Some(s);
                }
            },
            WordSegments::Unicode(u) => u.map(|(_, s)| s).find(|s| is_word(s)),
        }
    }
}

/// Whether an ASCII segment that starts with a byte of this class can have a letter or digit.
/// Only letters, digits and `_` open one: a space or `Other` byte joins nothing else, and a
/// `:`, `,`, `;`, `.` or `'` joins a letter or digit after it only when the same kind is before
/// it, and then it is inside that segment already (WB6, WB7, WB11, WB12).
fn opens_word(c: Class) -> bool {
    matches!(c, Class::Letter | Class::Digit | Class::Connector)
}

/// The segments of ASCII text (bytes are characters).
pub struct AsciiBounds<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for AsciiBounds<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.bytes;
        let start = self.pos;
        let mut prev = class(*b.get(start)?);
        let mut end = start + 1;
        loop {
            if matches!(prev, Class::Letter | Class::Digit) {
                // Letters and digits join each other (WB5, WB8–WB10): a run of them is passed
                // a byte at a time without the rules.
                end = alnum_run_end(b, end);
                prev = class(b[end - 1]);
            }
            let Some(&x) = b.get(end) else {
                break;
            };
            let cur = class(x);
            if !joins_at(b, end, prev, cur) {
                break;
            }
            prev = cur;
            end += 1;
        }
        self.pos = end;
        Some((start, &self.text[start..end]))
    }
}

/// The high bit of each of eight ASCII bytes that is a letter (any case) or a digit (`| 0x20`
/// takes capitals to small letters, and no other byte into `a..=z`).
fn alnum_bits(v: u64) -> u64 {
    within(v, b'0', b'9') | within(v | splat(0x20), b'a', b'z')
}

/// The end of the run of ASCII letters and digits at `from` in ASCII text (see
/// [`crate::runs::run_end`]).
fn alnum_run_end(b: &[u8], from: usize) -> usize {
    run_end(b, from, alnum_bits, |x| x.is_ascii_alphanumeric())
}

/// Whether the byte at `at` (of class `cur`) stays in the segment of the byte before it (of
/// class `prev`): [`joins`], with the pairs most text is made of settled first. Letters and
/// digits join each other (WB5, WB8–WB10) and spaces join spaces (WB3d); a space or an
/// `Other` byte joins nothing else, on either side (no rule of [`joins`] holds for them).
#[inline]
fn joins_at(b: &[u8], at: usize, prev: Class, cur: Class) -> bool {
    use Class::*;
    match (prev, cur) {
        (Letter | Digit, Letter | Digit) | (Space, Space) => true,
        (Space | Other, _) | (_, Space | Other) => false,
        _ => {
            let before = at.checked_sub(2).map(|i| class(b[i]));
            let after = b.get(at + 1).map(|&x| class(x));
            joins(before, prev, cur, after)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn crate_segments(text: &str) -> Vec<(usize, &str)> {
        text.split_word_bound_indices().collect()
    }

    #[test]
    fn alnum_run_end_is_the_byte_loop() {
        crate::runs::assert_run_end_is_the_byte_loop(
            alnum_bits,
            |x| x.is_ascii_alphanumeric(),
            true,
        );
    }

    #[test]
    fn ascii_table() {
        let cases: &[(&str, &[&str])] = &[
            ("create a file", &["create", " ", "a", " ", "file"]),
            (
                "a.b.c a..b 1.a a.1 a1.2",
                &[
                    "a.b.c", " ", "a", ".", ".", "b", " ", "1", ".", "a", " ", "a", ".", "1", " ",
                    "a1.2",
                ],
            ),
            (
                "don't 1,000 1:2 a:b x,y",
                &[
                    "don't", " ", "1,000", " ", "1", ":", "2", " ", "a:b", " ", "x", ",", "y",
                ],
            ),
            (
                "snake_case _x x_ __ \"q\"",
                &[
                    "snake_case",
                    " ",
                    "_x",
                    " ",
                    "x_",
                    " ",
                    "__",
                    " ",
                    "\"",
                    "q",
                    "\"",
                ],
            ),
            (
                "a  b\t\tc\r\n\r\rd",
                &["a", "  ", "b", "\t", "\t", "c", "\r\n", "\r", "\r", "d"],
            ),
            ("", &[]),
        ];
        for (text, want) in cases {
            let got: Vec<&str> = word_bounds(text).collect();
            assert_eq!(&got, want, "{text:?}");
            assert_eq!(
                word_bound_indices(text).collect::<Vec<_>>(),
                crate_segments(text),
                "{text:?}"
            );
        }
    }

    /// Spaces go, whatever the script around them; other whitespace stays.
    #[test]
    fn segments_but_spaces_table() {
        let cases: &[(&str, &[(usize, &str)])] = &[
            ("a  b.", &[(0, "a"), (3, "b"), (4, ".")]),
            (" \t x", &[(1, "\t"), (3, "x")]),
            ("   ", &[]),
            (
                "数据  文件 ",
                &[(0, "数"), (3, "据"), (8, "文"), (11, "件")],
            ),
        ];
        for (text, want) in cases {
            let got: Vec<(usize, &str)> = bound_indices_but_spaces(text).collect();
            assert_eq!(&got, want, "{text:?}");
        }
    }

    /// The word segments step over what cannot open a word, and keep what joins one.
    #[test]
    fn word_segments_table() {
        let cases: &[(&str, &[&str])] = &[
            ("create a file", &["create", "a", "file"]),
            (
                "_x x_ __ a.b .5 5. 1,000 ,1 'tis it's :a a:b -a- \"q\"",
                &[
                    "_x", "x_", "a.b", "5", "5", "1,000", "1", "tis", "it's", "a", "a:b", "a", "q",
                ],
            ),
            ("  \t\r\n ", &[]),
            ("", &[]),
            ("café au lait", &["café", "au", "lait"]),
        ];
        for (text, want) in cases {
            let got: Vec<&str> = word_segments(text).collect();
            assert_eq!(&got, want, "{text:?}");
        }
    }

    /// The settled pairs of [`joins_at`] agree with [`joins`], whatever bytes surround them.
    #[test]
    fn shortcut_pairs_agree_with_the_rules() {
        let bytes: Vec<u8> = (0u8..128).collect();
        for &p in &bytes {
            for &c in &bytes {
                for around in [b'a', b'1', b' ', b'.', b'_', b'"', b'\n'] {
                    let text = [around, p, c, around];
                    let (prev, cur) = (class(p), class(c));
                    let want = joins(Some(class(around)), prev, cur, Some(class(around)));
                    assert_eq!(joins_at(&text, 2, prev, cur), want, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn non_ascii_goes_to_the_crate() {
        for text in [
            "解析pdf文件",
            "café au lait",
            "e\u{301}t\u{e9}",
            "a\u{200d}b",
        ] {
            assert_eq!(
                word_bound_indices(text).collect::<Vec<_>>(),
                crate_segments(text)
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// Any ASCII text: the same segments as the crate.
        #[test]
        fn same_as_the_crate(text in "[ -~\t\r\n\u{b}\u{c}]{0,40}") {
            prop_assert_eq!(word_bound_indices(&text).collect::<Vec<_>>(), crate_segments(&text));
        }

        /// Any ASCII text, and text dense in the characters the rules look at: the word
        /// segments are the segments with a letter or digit.
        #[test]
        fn word_segments_are_the_segments_with_a_word(text in prop_oneof![
            "[ -~\t\r\n\u{b}\u{c}]{0,40}",
            "[aZ09:.,;'_ \"\r\n\t-]{0,24}",
        ]) {
            let want: Vec<&str> = word_bounds(&text).filter(|s| is_word(s)).collect();
            prop_assert_eq!(word_segments(&text).collect::<Vec<_>>(), want);
        }

        /// Any ASCII text: the segments but spaces are the segments but those of spaces alone.
        #[test]
        fn segments_but_spaces(text in "[ -~\t\r\n\u{b}\u{c}]{0,40}") {
            let want: Vec<(usize, &str)> = word_bound_indices(&text)
                .filter(|(_, s)| !s.bytes().all(|b| b == b' '))
                .collect();
            prop_assert_eq!(bound_indices_but_spaces(&text).collect::<Vec<_>>(), want);
        }

        /// Dense in the characters the rules look at.
        #[test]
        fn same_as_the_crate_on_rule_characters(text in "[aZ09:.,;'_ \"\r\n\t-]{0,24}") {
            prop_assert_eq!(word_bound_indices(&text).collect::<Vec<_>>(), crate_segments(&text));
        }
    }
}
