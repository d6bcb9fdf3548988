//! `pattern` matching: every pattern is compiled by the engine in use ([`crate::pattern`]:
//! regress by default; ECMAScript, `u` flag), and the simple ones are also compiled to a small
//! deterministic matcher that gives the same answer without the engine's per-call setup and
//! backtracking.
//!
//! **The simple class.** A pattern qualifies when it is a sequence of single-code-point atoms,
//! each with an optional quantifier, optionally anchored by a leading `^` and/or a trailing `$`:
//!
//! - atoms: a literal code point; an escaped syntax character or `/`; `\t \n \v \f \r`;
//!   `\d \D \w \W \s \S`; `.`; a class `[...]` / `[^...]` of literals, ranges and those
//!   escapes;
//! - quantifiers: `? * + {n} {n,} {n,m}`, greedy or lazy (laziness does not change whether a
//!   match exists);
//! - and **greedy-safe**: for every piece whose count may vary, no code point it accepts can
//!   also start what may follow it (the next pieces up to and including the first one that must
//!   consume something). `^dev_[a-z0-9]{6,}$` is; `^.+@.+$` is not (`.` accepts `@`).
//!
//! Anything else (groups, alternation, lookaround, `\b`, `\p{..}`, back-references, `\u`
//! escapes, ...) is left to the engine. Such a pattern denotes a regular language without any
//! construct whose meaning depends on backtracking order, so "does some substring match" has one
//! answer, which the scan below computes. Why the scan is exact: in state (piece `i`, count `c`),
//! a code point must go to piece `i` while `c < min`; once `c >= min` it may go to piece `i` only
//! if `c < max` and the piece accepts it, and then nothing after piece `i` could take it
//! (greedy-safe), so it must; otherwise it must go to a later piece. Every step is forced, so
//! one left-to-right pass decides the match; without `$` the match may end as soon as every
//! remaining piece may be empty, without `^` every start position is tried.
//!
//! ECMAScript `u`-mode details the class relies on: no flags other than `u` (so no case folding,
//! `.` excludes only the four line terminators, `^`/`$` are input boundaries), `\d`/`\w` are
//! ASCII, `\s` is WhiteSpace plus LineTerminator, atoms and quantifiers apply to whole code
//! points. Patterns the engine refuses never get here. The unit tests compare both engines on
//! generated patterns and strings.

use crate::pattern::CompiledPattern;
use std::sync::Arc;

/// A set of code points: a bitmap for ASCII plus sorted, disjoint, non-adjacent ranges for the
/// rest (only code points >= 0x80).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CharSet {
    ascii: [u64; 2],
    ranges: Vec<(u32, u32)>,
}

const MAX_CP: u32 = 0x10FFFF;

impl CharSet {
    fn from_ranges(mut rs: Vec<(u32, u32)>) -> CharSet {
        rs.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for (a, b) in rs {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let mut ascii = [0u64; 2];
        let mut ranges = Vec::new();
        for (a, b) in merged {
            for c in a..=b.min(127) {
                ascii[(c / 64) as usize] |= 1 << (c % 64);
            }
            if b >= 128 {
                ranges.push((a.max(128), b));
            }
        }
        CharSet { ascii, ranges }
    }

    /// All ranges, ASCII included, sorted and merged.
    fn to_ranges(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        let singles = (0..128u32).filter(|c| self.ascii[(c / 64) as usize] & (1 << (c % 64)) != 0);
        for (a, b) in singles.map(|c| (c, c)).chain(self.ranges.iter().copied()) {
            match out.last_mut() {
                Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        out
    }

    fn complement(&self) -> CharSet {
        let mut out = Vec::new();
        let mut next = 0u32;
        for (a, b) in self.to_ranges() {
            if a > next {
                out.push((next, a - 1));
            }
            next = b + 1;
        }
        if next <= MAX_CP {
            out.push((next, MAX_CP));
        }
        CharSet::from_ranges(out)
    }

    fn union(&self, other: &CharSet) -> CharSet {
        let mut rs = self.to_ranges();
        rs.extend(other.to_ranges());
        CharSet::from_ranges(rs)
    }

    fn intersects(&self, other: &CharSet) -> bool {
        if self.ascii[0] & other.ascii[0] != 0 || self.ascii[1] & other.ascii[1] != 0 {
            return true;
        }
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = self.ranges[i];
            let (c, d) = other.ranges[j];
            if a <= d && c <= b {
                return true;
            }
            if b < d {
                i += 1;
            } else {
                j += 1;
            }
        }
        false
    }

    #[inline]
    fn contains_ascii(&self, b: u8) -> bool {
        self.ascii[usize::from(b >> 6)] >> (b & 63) & 1 != 0
    }

    /// `b` is an ASCII byte in the set (`false` for every byte of a multi-byte code point).
    #[inline]
    fn contains_byte(&self, b: u8) -> bool {
        b < 128 && self.contains_ascii(b)
    }

    /// A table by byte of [`CharSet::contains_byte`].
    fn byte_table(&self) -> Box<[bool; 256]> {
        let mut t = Box::new([false; 256]);
        for (b, slot) in t.iter_mut().enumerate() {
            *slot = self.contains_byte(b as u8);
        }
        t
    }

    /// The only member, if there is exactly one.
    fn single(&self) -> Option<char> {
        let rs = self.to_ranges();
        match rs.as_slice() {
            [(a, b)] if a == b => char::from_u32(*a),
            _ => None,
        }
    }

    #[inline]
    fn contains(&self, c: char) -> bool {
        let c = c as u32;
        if c < 128 {
            return self.ascii[(c / 64) as usize] & (1 << (c % 64)) != 0;
        }
        self.contains_slow(c)
    }

    fn contains_slow(&self, c: u32) -> bool {
        // Few ranges in practice; binary search keeps big ones (\S, [^a]) cheap.
        self.ranges
            .binary_search_by(|&(a, b)| {
                if b < c {
                    std::cmp::Ordering::Less
                } else if a > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
}

fn single(c: u32) -> Vec<(u32, u32)> {
    vec![(c, c)]
}

fn digit() -> Vec<(u32, u32)> {
    vec![('0' as u32, '9' as u32)]
}

fn word() -> Vec<(u32, u32)> {
    vec![('0' as u32, '9' as u32), ('A' as u32, 'Z' as u32), ('_' as u32, '_' as u32), ('a' as u32, 'z' as u32)]
}

/// ECMAScript `\s`: WhiteSpace (TAB, VT, FF, ZWNBSP, Zs) and LineTerminator (LF, CR, LS, PS).
fn space() -> Vec<(u32, u32)> {
    vec![
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
}

/// `.` without the `s` flag: every code point except the line terminators.
fn dot() -> CharSet {
    CharSet::from_ranges(vec![(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]).complement()
}

fn is_syntax(c: char) -> bool {
    matches!(c, '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|')
}

/// One atom with its quantifier, as parsed.
#[derive(Clone, Debug)]
struct Piece {
    set: CharSet,
    min: u32,
    /// `u32::MAX` for unbounded.
    max: u32,
}

/// What the matcher runs: runs of single literal code points merged into one string.
#[derive(Clone, Debug)]
enum Step {
    Lit(String),
    Rep {
        set: CharSet,
        min: u64,
        /// How many it takes at most: its `max` (`u64::MAX` for unbounded), or `min` when the
        /// match may end right after it (no `$` and only optional steps follow).
        limit: u64,
        /// The set has no code point above 0x7F.
        ascii: bool,
        /// [`CharSet::contains_byte`] by byte.
        bytes: Box<[bool; 256]>,
    },
}

/// A compiled simple pattern (see the module documentation).
#[derive(Clone, Debug)]
pub(super) struct Simple {
    start: bool,
    end: bool,
    /// The steps that must match: without `$`, those before the first of the trailing steps
    /// that may all be empty (the match can end there).
    steps: Vec<Step>,
}

/// One escape in or out of a class: a single code point or a set (`\d`, ...).
enum Escape {
    Char(u32),
    Set(Vec<(u32, u32)>),
}

fn escape(c: char) -> Option<Escape> {
    Some(match c {
        'd' => Escape::Set(digit()),
        'D' => Escape::Set(CharSet::from_ranges(digit()).complement().to_ranges()),
        'w' => Escape::Set(word()),
        'W' => Escape::Set(CharSet::from_ranges(word()).complement().to_ranges()),
        's' => Escape::Set(space()),
        'S' => Escape::Set(CharSet::from_ranges(space()).complement().to_ranges()),
        't' => Escape::Char(0x09),
        'n' => Escape::Char(0x0A),
        'v' => Escape::Char(0x0B),
        'f' => Escape::Char(0x0C),
        'r' => Escape::Char(0x0D),
        c if is_syntax(c) || c == '/' => Escape::Char(c as u32),
        _ => return None,
    })
}

/// Parses a class body after `[`; `it` ends just after the closing `]`.
fn class(it: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<CharSet> {
    let negate = it.peek() == Some(&'^');
    if negate {
        it.next();
    }
    let mut ranges = Vec::new();
    loop {
        let c = it.next()?;
        if c == ']' {
            break;
        }
        // One class atom: a code point or an escape set.
        let low = if c == '\\' {
            let e = it.next()?;
            // `\-` is an identity escape inside a class in Unicode mode.
            match if e == '-' { Some(Escape::Char('-' as u32)) } else { escape(e) }? {
                Escape::Char(x) => x,
                Escape::Set(s) => {
                    // A set cannot start a range (a syntax error in u-mode); stay out of it.
                    if it.peek() == Some(&'-') {
                        let mut ahead = it.clone();
                        ahead.next();
                        if ahead.peek() != Some(&']') {
                            return None;
                        }
                    }
                    ranges.extend(s);
                    continue;
                }
            }
        } else {
            c as u32
        };
        // A range `low-high` unless the `-` is the last thing before `]`.
        if it.peek() == Some(&'-') {
            let mut ahead = it.clone();
            ahead.next();
            match ahead.peek() {
                Some(']') | None => {}
                Some(_) => {
                    it.next(); // the '-'
                    let h = it.next()?;
                    let high = if h == '\\' {
                        let e = it.next()?;
                        match if e == '-' { Some(Escape::Char('-' as u32)) } else { escape(e) }? {
                            Escape::Char(x) => x,
                            Escape::Set(_) => return None,
                        }
                    } else {
                        h as u32
                    };
                    if high < low {
                        return None;
                    }
                    ranges.push((low, high));
                    continue;
                }
            }
        }
        ranges.push((low, low));
    }
    let set = CharSet::from_ranges(ranges);
    Some(if negate { set.complement() } else { set })
}

fn number(it: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u32> {
    let mut n: u64 = 0;
    let mut any = false;
    while let Some(d) = it.peek().and_then(|c| c.to_digit(10)) {
        it.next();
        any = true;
        n = n * 10 + u64::from(d);
        if n >= u64::from(u32::MAX) {
            return None;
        }
    }
    any.then_some(n as u32)
}

impl Simple {
    /// The matcher for `source`, if it is in the simple class. `source` must already be a valid
    /// ECMAScript `u`-mode pattern (the engine compiled it).
    pub(super) fn compile(source: &str) -> Option<Simple> {
        let mut it = source.chars().peekable();
        let start = it.peek() == Some(&'^');
        if start {
            it.next();
        }
        let mut end = false;
        let mut pieces: Vec<Piece> = Vec::new();
        while let Some(c) = it.next() {
            let set = match c {
                '$' => {
                    if it.peek().is_some() {
                        return None;
                    }
                    end = true;
                    break;
                }
                '\\' => match escape(it.next()?)? {
                    Escape::Char(x) => CharSet::from_ranges(single(x)),
                    Escape::Set(s) => CharSet::from_ranges(s),
                },
                '.' => dot(),
                '[' => class(&mut it)?,
                c if is_syntax(c) => return None,
                c => CharSet::from_ranges(single(c as u32)),
            };
            let (min, max) = match it.peek() {
                Some('*') => (0, u32::MAX),
                Some('+') => (1, u32::MAX),
                Some('?') => (0, 1),
                Some('{') => {
                    it.next();
                    let min = number(&mut it)?;
                    let max = match it.next()? {
                        '}' => min,
                        ',' => {
                            if it.peek() == Some(&'}') {
                                it.next();
                                u32::MAX
                            } else {
                                let m = number(&mut it)?;
                                if it.next()? != '}' || m < min {
                                    return None;
                                }
                                m
                            }
                        }
                        _ => return None,
                    };
                    // Consumed up to `}`; a lazy `?` may follow.
                    if it.peek() == Some(&'?') {
                        it.next();
                    }
                    pieces.push(Piece { set, min, max });
                    continue;
                }
                _ => (1, 1),
            };
            if (min, max) != (1, 1) {
                it.next();
                if it.peek() == Some(&'?') {
                    it.next();
                }
            }
            pieces.push(Piece { set, min, max });
        }
        // Greedy safety.
        for i in 0..pieces.len() {
            if pieces[i].min == pieces[i].max {
                continue;
            }
            let mut follow = CharSet::from_ranges(Vec::new());
            for p in &pieces[i + 1..] {
                follow = follow.union(&p.set);
                if p.min > 0 {
                    break;
                }
            }
            if pieces[i].set.intersects(&follow) {
                return None;
            }
        }
        let mut steps: Vec<Step> = Vec::new();
        for p in pieces {
            if let (1, 1, Some(c)) = (p.min, p.max, p.set.single()) {
                if let Some(Step::Lit(l)) = steps.last_mut() {
                    l.push(c);
                } else {
                    steps.push(Step::Lit(c.to_string()));
                }
                continue;
            }
            let max = if p.max == u32::MAX { u64::MAX } else { u64::from(p.max) };
            steps.push(Step::Rep {
                ascii: p.set.ranges.is_empty(),
                bytes: p.set.byte_table(),
                set: p.set,
                min: u64::from(p.min),
                limit: max,
            });
        }
        let n = steps.len();
        let mut tail_nullable = vec![true; n + 1];
        for i in (0..n).rev() {
            let nullable = matches!(steps[i], Step::Rep { min: 0, .. });
            tail_nullable[i] = tail_nullable[i + 1] && nullable;
        }
        if !end {
            let keep = tail_nullable.iter().position(|&t| t).unwrap_or(n);
            steps.truncate(keep);
            if let Some(Step::Rep { min, limit, .. }) = steps.last_mut() {
                *limit = *min;
            }
        }
        Some(Simple { start, end, steps })
    }

    /// Is there a match somewhere in `s` (ECMAScript `RegExp.prototype.test`)?
    #[inline]
    pub(super) fn is_match(&self, s: &str) -> bool {
        if self.start {
            return self.match_at(s);
        }
        if let Some(Step::Lit(l)) = self.steps.first() {
            // A match can only start where the literal does.
            let mut from = 0;
            while let Some(k) = s[from..].find(l.as_str()) {
                if self.match_at(&s[from + k..]) {
                    return true;
                }
                from += k + s[from + k..].chars().next().map_or(1, char::len_utf8);
            }
            return false;
        }
        if self.match_at(s) {
            return true;
        }
        let mut rest = s.chars();
        while rest.next().is_some() {
            if self.match_at(rest.as_str()) {
                return true;
            }
        }
        false
    }

    /// Does a match start at the beginning of `s`? Each step takes as many code points as it
    /// can (greedy safety makes that the only choice), except that without `$` the match ends
    /// as soon as everything left may be empty.
    #[inline]
    fn match_at(&self, s: &str) -> bool {
        let b = s.as_bytes();
        let mut pos = 0usize;
        for step in &self.steps {
            match step {
                Step::Lit(l) => {
                    let l = l.as_bytes();
                    let Some(here) = b.get(pos..pos + l.len()) else {
                        return false;
                    };
                    // Short literals byte by byte (no memcmp call).
                    if l.len() <= 16 {
                        if here.iter().zip(l).any(|(x, y)| x != y) {
                            return false;
                        }
                    } else if here != l {
                        return false;
                    }
                    pos += l.len();
                }
                Step::Rep { set, min, limit, ascii, bytes } => {
                    // ASCII run first: one byte per code point, so the count is the length.
                    let start = pos;
                    let stop = match usize::try_from(*limit) {
                        Ok(l) => b.len().min(pos.saturating_add(l)),
                        Err(_) => b.len(),
                    };
                    pos += b[pos..stop].iter().position(|&x| !bytes[usize::from(x)]).unwrap_or(stop - pos);
                    let mut count = (pos - start) as u64;
                    if !*ascii {
                        while count < *limit {
                            let Some(c) = s[pos..].chars().next() else { break };
                            if !set.contains(c) {
                                break;
                            }
                            pos += c.len_utf8();
                            count += 1;
                        }
                    }
                    if count < *min {
                        return false;
                    }
                }
            }
        }
        !self.end || pos == b.len()
    }
}

/// `pattern` as the validator holds it: compiled by the engine in use (which defines the
/// semantics and decided that the pattern is valid), plus the simple matcher when the pattern is
/// in its class.
pub(super) struct Pattern {
    compiled: Arc<dyn CompiledPattern>,
    simple: Option<Simple>,
    pub(super) message: String,
}

impl Pattern {
    pub(super) fn new(source: &str, compiled: Arc<dyn CompiledPattern>, message: String) -> Pattern {
        Pattern { compiled, simple: Simple::compile(source), message }
    }

    #[inline]
    pub(super) fn is_match(&self, s: &str) -> bool {
        match &self.simple {
            Some(m) => m.is_match(s),
            None => self.compiled.is_match(s),
        }
    }
}

#[cfg(all(test, feature = "regress"))]
mod tests {
    use super::*;

    fn regress_match(p: &str, s: &str) -> bool {
        regress::Regex::with_flags(p, "u").unwrap().find(s).is_some()
    }

    #[test]
    fn classifies_patterns() {
        for p in [
            "^dev_[a-z0-9]{6,}$",
            "^[A-Z]{2,3}$",
            "^\\d{4}-\\d{2}-\\d{2}$",
            "^[a-z][a-z0-9_]*$",
            "a+",
            "",
            "^$",
            "^[^\\s]+$",
            "[\\w.-]",
            "^\\+?[0-9]{7,15}$",
            "^🐲*$",
            "x{0}y",
            "^[]$",
            "^[^]*$",
        ] {
            assert!(Simple::compile(p).is_some(), "{p}");
        }
        for p in [
            "^.+@.+$",
            "^(a|b)$",
            "a|b",
            "\\bx",
            "^\\p{Letter}+$",
            "^a*a$",
            "(?=a)",
            "^\\u0041$",
            "^a$b",
            "a^",
            "[\\b]",
            "\\0",
        ] {
            assert!(Simple::compile(p).is_none(), "{p}");
        }
    }

    /// Deterministic pseudo-random numbers (no dependency, reproducible).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[(self.next() % xs.len() as u64) as usize]
        }
    }

    const ATOMS: &[&str] = &[
        "a",
        "b",
        "-",
        "_",
        ".",
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "[a-c]",
        "[^a]",
        "[-a]",
        "[a-]",
        "[\\d_]",
        "[^\\s]",
        "[\\-x]",
        "[--/]",
        "[a-b-d]",
        "[\\]\\\\]",
        "[.]",
        "[\\^]",
        "[^]",
        "[]",
        "é",
        "🐲",
        "\\.",
        "\\/",
        "\\t",
        "\\n",
        "\\$",
        "[\\n\\r]",
        "[x-z0-2]",
        "[ -~]",
        "[\\u{61}]",
        "[[]",
        "[a^]",
    ];
    const QUANTS: &[&str] = &["", "", "", "?", "*", "+", "{2}", "{1,}", "{0,2}", "{1,3}?", "*?", "+?", "{0}"];
    const CHARS: &[char] = &[
        'a',
        'b',
        'c',
        'd',
        'x',
        'z',
        '-',
        '_',
        '.',
        '/',
        '0',
        '5',
        '9',
        ' ',
        '\t',
        '\n',
        '\r',
        '\u{0B}',
        '\u{0C}',
        '\u{A0}',
        '\u{2028}',
        '\u{3000}',
        '\u{FEFF}',
        '\u{1680}',
        '\u{180E}',
        'é',
        '🐲',
        '^',
        '$',
        '\\',
        ']',
        '[',
        'A',
        'Z',
        '~',
        '\u{0}',
        '\u{10FFFF}',
        'ſ',
        'K',
    ];

    #[test]
    fn agrees_with_regress_on_generated_patterns() {
        let mut rng = Rng(0x9E3779B97F4A7C15);
        let (mut simple_count, mut matched) = (0, 0);
        for _ in 0..4000 {
            let mut p = String::new();
            let anchored_start = rng.next() % 3 != 0;
            if anchored_start {
                p.push('^');
            }
            for _ in 0..(rng.next() % 5) {
                p.push_str(rng.pick(ATOMS));
                p.push_str(rng.pick(QUANTS));
            }
            if rng.next() % 3 != 0 {
                p.push('$');
            }
            let Ok(re) = regress::Regex::with_flags(&p, "u") else {
                continue;
            };
            let Some(simple) = Simple::compile(&p) else {
                continue;
            };
            simple_count += 1;
            for _ in 0..60 {
                let len = rng.next() % 8;
                let s: String = (0..len).map(|_| rng.pick(CHARS)).collect();
                let want = re.find(&s).is_some();
                matched += usize::from(want);
                assert_eq!(simple.is_match(&s), want, "pattern {p:?} on {s:?}");
            }
        }
        assert!(simple_count > 1500, "only {simple_count} simple patterns");
        assert!(matched > simple_count * 60 / 10, "only {matched} matches");
    }

    #[test]
    fn agrees_with_regress_on_typical_patterns() {
        let cases: &[(&str, &[&str])] = &[
            (
                "^dev_[a-z0-9]{6,}$",
                &["dev_abc123", "dev_abc12", "dev_ABC123", "xdev_abc123", "dev_abc123\n", "dev_abcdefghij", "dev_", ""],
            ),
            ("a+", &["xaay", "", "b", "A"]),
            ("^\\d{4}-\\d{2}-\\d{2}$", &["2024-01-31", "2024-1-31", "٢٠٢٤-01-31"]),
            ("^[^\\s]+$", &["abc", "a b", "a\u{3000}b", "", "a\u{180E}b"]),
            ("^🐲*$", &["🐲🐲", "", "🐲a"]),
            ("x{0}y", &["y", "x", ""]),
            ("^\\+?[0-9]{7,15}$", &["+1234567", "1234567890123456", "123456"]),
        ];
        for (p, strings) in cases {
            let simple = Simple::compile(p).unwrap();
            for s in *strings {
                assert_eq!(simple.is_match(s), regress_match(p, s), "{p} on {s:?}");
            }
        }
    }
}
